/* GPU-MCML's table of multiply-with-carry multipliers (safeprimes_base32.txt), made as
 * CUDAMCML's seeding note defines it, for scripts/build-gpumcml.sh where a checkout lacks the
 * file: multipliers a below 2^32, descending, for which p = a*2^32 - 1 and (p - 1) / 2 =
 * a*2^31 - 1 are both prime. One line per multiplier: a, then p's high and low 32 bits (GPU-MCML
 * reads the first number only).   usage: gpumcml-safeprimes COUNT > safeprimes_base32.txt */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef unsigned __int128 u128;

static uint64_t mulmod(uint64_t a, uint64_t b, uint64_t m) { return (uint64_t)((u128)a * b % m); }

static uint64_t powmod(uint64_t b, uint64_t e, uint64_t m) {
    uint64_t r = 1;
    for (b %= m; e; e >>= 1, b = mulmod(b, b, m))
        if (e & 1) r = mulmod(r, b, m);
    return r;
}

/* Miller-Rabin with the first 12 primes as bases: deterministic for every n below 3.3e24. */
static int is_prime(uint64_t n) {
    static const uint64_t bases[] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37};
    for (int i = 0; i < 12; i++)
        if (n % bases[i] == 0) return n == bases[i];
    for (uint64_t p = 41; p < 1000; p += 2)
        if (n % p == 0) return n == p;
    uint64_t d = n - 1;
    int s = 0;
    while (!(d & 1)) { d >>= 1; s++; }
    for (int i = 0; i < 12; i++) {
        uint64_t x = powmod(bases[i], d, n);
        if (x == 1 || x == n - 1) continue;
        int composite = 1;
        for (int r = 1; r < s && composite; r++) {
            x = mulmod(x, x, n);
            if (x == n - 1) composite = 0;
        }
        if (composite) return 0;
    }
    return 1;
}

int main(int argc, char **argv) {
    long want = argc > 1 ? atol(argv[1]) : 0;
    for (uint64_t a = 0xffffffffull; a > 1 && want > 0; a--) {
        uint64_t p = (a << 32) - 1, q = (a << 31) - 1;
        if (is_prime(q) && is_prime(p)) {
            printf("%llu %llu %llu\n", (unsigned long long)a, (unsigned long long)(p >> 32),
                   (unsigned long long)(p & 0xffffffffu));
            want--;
        }
    }
    return want == 0 ? 0 : 1;
}
