/* attacks5 cand11_const_object_ctor: static initialisation: a const object whose constructor runs before main and takes 1 GiB of device memory in every program the object is linked into */
// ---- after: }

struct hog {
    hog()
    {
        void *p = NULL;
        cudaMalloc(&p, (size_t)1 << 30); /* 1 GiB of the GPU, held before main */
    }
};
static const hog the_hog;
