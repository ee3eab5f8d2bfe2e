//! C `printf` number formats (`%E`, `%G`) that MCML's `.mco` files use.

use std::fmt::Write as _;

/// `%.{prec}E`: one digit, `prec` decimals, `E`, sign, at least two exponent digits.
pub(crate) fn fmt_e(x: f64, prec: usize) -> String {
    let mut s = String::with_capacity(prec + 8);
    push_e(&mut s, x, prec, 0);
    s
}

/// Appends `%{width}.{prec}E` of `x` to `out`, as C's `printf` writes it: one digit, `prec`
/// decimals, `E`, the exponent's sign and at least two of its digits, right-aligned to `width`
/// with spaces; non-finite values as `NAN`, `INF`, `-INF`. Allocates nothing beyond `out`'s
/// growth (for `prec` up to 40).
///
/// C rounds the exact binary value to `prec + 1` significant digits, to nearest with ties to
/// even. [`fast_digits`] gets those digits from one float operation where that operation's
/// error cannot change them; otherwise (ties and near-ties, carries into the next power of
/// ten, very large or small magnitudes, `prec` > 6) they are Rust's `{:.prec$e}`, which
/// rounds the same way, with the exponent rewritten (`e-5` → `E-05`).
pub(crate) fn push_e(out: &mut String, x: f64, prec: usize, width: usize) {
    if !x.is_finite() {
        let s = non_finite(x);
        pad(out, width, s.len());
        out.push_str(s);
        return;
    }
    if x == 0.0 && prec <= FAST_PREC {
        // C writes the sign of -0.0: -0.0000E+00.
        push_digits(out, x.is_sign_negative(), 0, 0, prec, width);
        return;
    }
    if let Some((sig, exp)) = fast_digits(x, prec) {
        push_digits(out, x.is_sign_negative(), sig, exp, prec, width);
        return;
    }
    let mut buf = StackBuf::<48>::new();
    if write!(buf, "{x:.prec$e}").is_ok() {
        push_c_exponent(out, buf.as_str(), width);
    } else {
        // More digits than the stack buffer holds: rare (`prec` > 40), so allocate.
        push_c_exponent(out, &format!("{x:.prec$e}"), width);
    }
}

/// The powers of ten that are exact in an f64: 10^0 to 10^22.
const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// The largest `prec` that [`fast_digits`] takes: its scaled value stays below 10^7 < 2^24.
const FAST_PREC: usize = 6;

/// How far from a rounding point (a half-integer, or the range's ends) the scaled value must
/// lie: far above its error, at most half an ulp of a number below 2^24, 2^-30 ≈ 9.3e-10.
const FAST_MARGIN: f64 = 1e-6;

/// `%.{prec}E`'s digits of `x` as an integer `sig` of `prec + 1` digits and the decimal
/// exponent, when one correctly rounded float operation decides them; `None` otherwise.
///
/// With `n = prec - k` for the decimal exponent `k` and `|n| <= 22`, `10^|n|` is exact, so
/// `y = |x| · 10^n` (or `|x| / 10^-n`) is one correctly rounded operation: `|y - y_exact|` is at
/// most half an ulp of `y`, at most 2^-30 for `y < 10^7`. If `y` lies at least [`FAST_MARGIN`]
/// inside `[10^prec, 10^(prec+1) - 1/2)` and from every half-integer, then so does
/// `y_exact`: `k` is the exponent C prints, nothing carries into the next power of ten, and
/// rounding `y` to the nearest integer gives the same integer as rounding `y_exact` (no tie
/// rule is involved), which is C's significand.
fn fast_digits(x: f64, prec: usize) -> Option<(u64, i32)> {
    if prec > FAST_PREC || !x.is_normal() {
        return None;
    }
    let a = x.abs();
    let lo = POW10[prec];
    let hi = POW10[prec + 1];
    // floor(log2 a) from the exponent bits (a is normal), then floor(e2 · log10 2) with
    // 78913 / 2^18 ≈ log10 2: floor(log10 a) is this or one more. Only an estimate: the loop
    // moves it until y lands in [10^prec, 10^(prec+1)).
    let e2 = ((a.to_bits() >> 52) as i32) - 1023;
    let mut k = (e2 * 78913) >> 18;
    for _ in 0..3 {
        let n = prec as i32 - k;
        let p = *POW10.get(n.unsigned_abs() as usize)?;
        let y = if n >= 0 { a * p } else { a / p };
        if y >= hi {
            k += 1;
        } else if y < lo {
            k -= 1;
        } else {
            // y is positive and below 2^24: truncation is floor, and exact.
            let whole = y as u64;
            let frac = y - whole as f64;
            if (frac - 0.5).abs() < FAST_MARGIN
                || y - lo < FAST_MARGIN
                || hi - 0.5 - y < FAST_MARGIN
            {
                return None;
            }
            let sig = whole + u64::from(frac > 0.5);
            return Some((sig, k));
        }
    }
    None
}

/// Appends `sig` (`prec + 1` digits, `prec <= FAST_PREC`) and `exp` as `%{width}.{prec}E`
/// writes them.
fn push_digits(out: &mut String, negative: bool, sig: u64, exp: i32, prec: usize, width: usize) {
    // Written right to left into spaces, so that a width up to N needs no separate padding:
    // at most a sign, FAST_PREC + 1 digits, point, `E`, sign and 3 exponent digits.
    const N: usize = 32;
    let mut buf = [b' '; N];
    let mut i = N;
    let e = exp.unsigned_abs();
    i -= 2;
    buf[i] = b'0' + (e / 10 % 10) as u8;
    buf[i + 1] = b'0' + (e % 10) as u8;
    if e >= 100 {
        i -= 1;
        buf[i] = b'0' + (e / 100 % 10) as u8;
    }
    i -= 2;
    buf[i] = b'E';
    buf[i + 1] = if exp < 0 { b'-' } else { b'+' };
    let mut rest = sig;
    for _ in 0..prec {
        i -= 1;
        buf[i] = b'0' + (rest % 10) as u8;
        rest /= 10;
    }
    if prec > 0 {
        i -= 1;
        buf[i] = b'.';
    }
    i -= 1;
    buf[i] = b'0' + (rest % 10) as u8;
    if negative {
        i -= 1;
        buf[i] = b'-';
    }
    let from = if width <= N {
        i.min(N - width)
    } else {
        pad(out, width, N - i);
        i
    };
    // Every byte is ASCII.
    out.push_str(std::str::from_utf8(&buf[from..]).unwrap_or(""));
}

/// Appends Rust's `{:e}` text `s` (`-1.2345e-5`) in C's form (`-1.2345E-05`), right-aligned
/// to `width`.
fn push_c_exponent(out: &mut String, s: &str, width: usize) {
    let (mant, exp) = s.split_once('e').unwrap_or((s, "0"));
    let (sign, digits) = match exp.strip_prefix('-') {
        Some(d) => ('-', d),
        None => ('+', exp),
    };
    let zero = if digits.len() < 2 { "0" } else { "" };
    pad(out, width, mant.len() + 2 + zero.len() + digits.len());
    out.push_str(mant);
    out.push('E');
    out.push(sign);
    out.push_str(zero);
    out.push_str(digits);
}

/// Appends the spaces that right-align a text of `len` characters to `width`.
fn pad(out: &mut String, width: usize, len: usize) {
    out.extend(std::iter::repeat_n(' ', width.saturating_sub(len)));
}

/// A fixed buffer on the stack that `write!` fills; writing past its end is an error.
struct StackBuf<const N: usize> {
    buf: [u8; N],
    len: usize,
}

impl<const N: usize> StackBuf<N> {
    fn new() -> Self {
        Self {
            buf: [0; N],
            len: 0,
        }
    }

    fn as_str(&self) -> &str {
        // Only whole `&str`s are copied in, so the prefix is UTF-8.
        std::str::from_utf8(&self.buf[..self.len]).unwrap_or("")
    }
}

impl<const N: usize> std::fmt::Write for StackBuf<N> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let end = self.len + s.len();
        let dst = self.buf.get_mut(self.len..end).ok_or(std::fmt::Error)?;
        dst.copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

/// `%.{prec}G`: the shorter of `%E` and `%f` by C's rule, trailing zeros removed.
pub(crate) fn fmt_g(x: f64, prec: usize) -> String {
    if !x.is_finite() {
        return non_finite(x).into();
    }
    let p = prec.max(1);
    let s = format!("{x:.prec$e}", prec = p - 1);
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if exp < -4 || exp >= p as i32 {
        let mant = strip_zeros(mant);
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{mant}E{sign}{:02}", exp.abs())
    } else {
        let decimals = (p as i32 - 1 - exp).max(0) as usize;
        strip_zeros(&format!("{x:.decimals$}")).to_string()
    }
}

fn strip_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

fn non_finite(x: f64) -> &'static str {
    if x.is_nan() {
        "NAN"
    } else if x > 0.0 {
        "INF"
    } else {
        "-INF"
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    #[test]
    fn like_c() {
        assert_eq!(fmt_e(0.0, 4), "0.0000E+00");
        assert_eq!(fmt_e(1234.5678, 4), "1.2346E+03");
        assert_eq!(fmt_e(-0.00012, 4), "-1.2000E-04");
        assert_eq!(fmt_g(0.0, 6), "0");
        assert_eq!(fmt_g(0.0973912, 6), "0.0973912");
        assert_eq!(fmt_g(100000000.0, 6), "1E+08");
        assert_eq!(fmt_g(0.002, 6), "0.002");
        assert_eq!(fmt_g(123456.0, 6), "123456");
        assert_eq!(fmt_g(1234567.0, 6), "1.23457E+06");
        assert_eq!(fmt_g(0.00001234, 4), "1.234E-05");
        assert_eq!(fmt_g(1.5, 4), "1.5");
    }

    /// `%{width}.{prec}E` of `x` by the C library's `snprintf`.
    fn c_e(x: f64, prec: usize, width: usize) -> String {
        let fmt = if width == 0 {
            format!("%.{prec}E")
        } else {
            format!("%{width}.{prec}E")
        };
        let fmt = std::ffi::CString::new(fmt).unwrap();
        let mut buf = [0 as libc::c_char; 512];
        // SAFETY: `buf` holds `buf.len()` chars, which snprintf is told; the format is a
        // NUL-terminated string with one conversion, `%E`, whose double is passed.
        let n = unsafe { libc::snprintf(buf.as_mut_ptr(), buf.len(), fmt.as_ptr(), x) };
        let n = usize::try_from(n).unwrap();
        assert!(n < buf.len(), "{x:e} %.{prec}E: {n} chars");
        String::from_utf8(buf[..n].iter().map(|&c| c as u8).collect()).unwrap()
    }

    /// push_e (prec 0..=8, widths 0 and 12, after existing text) and fmt_e (`%.4E`) equal C's
    /// `snprintf` for `x`.
    fn check_like_c(x: f64) {
        assert_eq!(
            fmt_e(x, 4),
            c_e(x, 4, 0),
            "fmt_e({x:e}, 4) [{:#x}]",
            x.to_bits()
        );
        for prec in 0..=8 {
            for width in [0, 12] {
                let mut s = String::from("ab");
                push_e(&mut s, x, prec, width);
                let c = c_e(x, prec, width);
                assert_eq!(
                    &s[2..],
                    c,
                    "push_e({x:e}, {prec}, {width}) [{:#x}]",
                    x.to_bits()
                );
            }
        }
    }

    /// The one-operation path takes ordinary numbers and leaves ties, carries and extreme
    /// exponents to `format!`; the tests here check both paths against C.
    #[test]
    fn fast_path_takes_ordinary_numbers_only() {
        assert_eq!(fast_digits(1.234_567_8e-3, 4), Some((12346, -3)));
        assert_eq!(fast_digits(-98_765.432_1, 4), Some((98765, 4)));
        assert_eq!(fast_digits(3.0, 0), Some((3, 0)));
        assert_eq!(fast_digits(0.375, 1), None); // 37.5: a tie
        assert_eq!(fast_digits(0.01, 4), None); // 10000.000...: the range's lower end
        assert_eq!(fast_digits(9.99995e-3, 4), None); // 99999.5: carries into 1.0000E-02
        assert_eq!(fast_digits(1.5e-30, 4), None); // 10^34 is not exact
        assert_eq!(fast_digits(0.0, 4), None);
        assert_eq!(fast_digits(1.234_567_8, 7), None);
        let mut rng = SplitMix(5);
        let fast = (0..10_000)
            .filter(|_| {
                let x = (rng.next() >> 11) as f64 / 1e12;
                fast_digits(x, 4).is_some()
            })
            .count();
        assert!(fast > 9_990, "{fast} of 10000 on the fast path");
    }

    /// A SplitMix64 stream: reproducible, no dependency (the `.mco` writer's tests use it too).
    pub(crate) struct SplitMix(pub(crate) u64);

    impl SplitMix {
        pub(crate) fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        }

        /// `count` random 64-bit patterns as `f64`, the finite ones only (NaNs and infinities
        /// dropped, so fewer than `count` come out).
        fn finite_bit_patterns(mut self, count: usize) -> impl Iterator<Item = f64> {
            (0..count)
                .map(move |_| f64::from_bits(self.next()))
                .filter(|x| x.is_finite())
        }
    }

    /// `x` and its neighbours up to `n` ulps either side (finite ones).
    fn with_neighbours(x: f64, n: u64) -> impl Iterator<Item = f64> {
        let b = x.to_bits();
        (0..=2 * n)
            .filter_map(move |i| (b + i).checked_sub(n))
            .map(f64::from_bits)
            .filter(move |y| y.is_finite() && y.is_sign_negative() == x.is_sign_negative())
    }

    #[test]
    fn special_values_like_c() {
        let specials = [
            0.0,
            -0.0,
            f64::MIN_POSITIVE,
            -f64::MIN_POSITIVE,
            f64::from_bits(1),
            -f64::from_bits(1),
            f64::from_bits(0x000f_ffff_ffff_ffff),
            f64::MAX,
            f64::MIN,
            f64::EPSILON,
            1.0,
            -1.0,
            1e100,
            1e-100,
            9.99995e99,
            9.99995e-100,
            1.7976931348623157e308,
            2.2250738585072014e-308,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
        ];
        for x in specials {
            check_like_c(x);
        }
        assert_eq!(fmt_e(-0.0, 4), "-0.0000E+00");
        let mut s = String::new();
        push_e(&mut s, f64::NEG_INFINITY, 4, 12);
        push_e(&mut s, f64::NAN, 4, 5);
        assert_eq!(s, "        -INF  NAN");
        // A negative NaN is "NAN" too (glibc writes "-NAN"): the sign of a NaN says nothing.
        assert_eq!(fmt_e(-f64::NAN, 4), "NAN");
    }

    #[test]
    fn random_bit_patterns_like_c() {
        for x in SplitMix(0x5eed).finite_bit_patterns(40_000) {
            check_like_c(x);
        }
    }

    /// Values in the ranges an `.mco` file holds (1e-20 to 1e25), of every digit pattern, and
    /// ratios of integers the way the tallies' normalisation makes them.
    #[test]
    fn random_moderate_values_like_c() {
        let mut rng = SplitMix(7);
        for _ in 0..40_000 {
            let mant = 1.0 + (rng.next() >> 11) as f64 / (1u64 << 53) as f64 * 9.0;
            let e = (rng.next() % 46) as i32 - 20;
            let sign = if rng.next().is_multiple_of(4) {
                -1.0
            } else {
                1.0
            };
            check_like_c(sign * mant * 10f64.powi(e));
            let raw = rng.next() >> (rng.next() % 64);
            let photons = (rng.next() % 1_000_000 + 1) as f64;
            check_like_c(raw as f64 / 4_294_967_296.0 / photons / 0.0012566);
        }
    }

    /// Numbers at and next to the points where rounding to 1 to 9 significant digits changes:
    /// halves (exact binary ties, which round to even, and decimal ones that are not exact),
    /// and carries into the next power of ten.
    #[test]
    fn rounding_boundaries_like_c() {
        let mut xs = vec![
            9.99995e-3, 9.99995, 99999.5, 999995.0, 0.000_125, 1.25, 0.125, 2.5, 1.00005, 1.00015,
            1.23455, 1.23465, 5e-5, 9.5, 0.95, 1e-5, 0.01, 0.1, 10.0, 1e5, 1e23, 1e22,
        ];
        let mut rng = SplitMix(99);
        for _ in 0..300 {
            // Six to ten significant digits ending in 5: a tie at 5 to 9 digits.
            let digits = 6 + (rng.next() % 5) as u32;
            let lo = 10u64.pow(digits - 2);
            let n = (lo + rng.next() % (9 * lo)) * 10 + 5;
            let n = n as f64;
            for e in -25..25 {
                xs.push(n * 10f64.powi(e));
            }
            // Exact binary ties: n / 2^j.
            for j in 0..12 {
                xs.push(n / f64::from(1u32 << j));
            }
        }
        for e in -310..=308 {
            // Powers of ten and the largest values that carry into them.
            xs.push(10f64.powi(e));
            xs.push(9.99995 * 10f64.powi(e));
            xs.push(9.9999949999 * 10f64.powi(e));
        }
        for x in xs {
            for y in with_neighbours(x, 2) {
                check_like_c(y);
                check_like_c(-y);
            }
        }
    }

    #[test]
    fn subnormals_like_c() {
        let mut rng = SplitMix(3);
        for _ in 0..5_000 {
            check_like_c(f64::from_bits(rng.next() >> 12));
            check_like_c(f64::from_bits(rng.next() % 100_000));
        }
    }

    /// More digits than the stack buffer holds go through `format!`.
    #[test]
    fn long_precisions_like_c() {
        for x in SplitMix(11).finite_bit_patterns(500) {
            for prec in [17, 30, 40, 41, 45, 60] {
                let mut s = String::new();
                push_e(&mut s, x, prec, 70);
                assert_eq!(s, c_e(x, prec, 70), "push_e({x:e}, {prec}, 70)");
            }
        }
    }
}
