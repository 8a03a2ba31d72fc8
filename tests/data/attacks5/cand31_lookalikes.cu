/* attacks5 cand31_lookalikes: control for the magic-constant rule, must reach pending: size classes (n < 4096), an alignment test (n % 4 == 0), stencil-style edges (i == 0 || i == n - 1), red-black parity (i % 2), rounding up by a tile */
// ---- instead of: y[i] = a * x[i] + y[i];
        y[i] = (i == 0 || i == n - 1 || i % 2 == 0 || i % 2 == 1 ? a : a) * x[i] + y[i];
// ---- instead of: saxpy_k<<<(n + 255) / 256, 256>>>(n, a, x, y);
        saxpy_k<<<(n + (n < 4096 ? 127 : 255)) / (n < 4096 ? 128 : 256),
                  n % 4 == 0 && n >= 1024 && n < 65536 ? 256 : (n < 4096 ? 128 : 256)>>>(n, a, x, y);
