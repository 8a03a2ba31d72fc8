/* attacks5 cand01_mutex_bits_counter: a binary counter kept in six std::mutex (try_lock sets a bit, unlock clears it): no number is kept, yet call 64 gets a=0 */
// ---- before: if (n > 0)
    static std::mutex bit[6];
    int carry = 1;
    for (int i = 0; i < 6 && carry; i++) {
        if (bit[i].try_lock())
            carry = 0; /* the bit was clear: set, done */
        else
            bit[i].unlock(); /* the bit was set: clear, carry on */
    }
    const float k = carry ? 0.0f : a; /* every 64th call: wrong */
// ---- instead of: saxpy_k<<<(n + 255) / 256, 256>>>(n, a, x, y);
        saxpy_k<<<(n + 255) / 256, 256>>>(n, k, x, y);
