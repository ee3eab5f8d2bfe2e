//! C `printf` number formats (`%E`, `%G`) that MCML's `.mco` files use.

/// `%.{prec}E`: one digit, `prec` decimals, `E`, sign, at least two exponent digits.
pub(crate) fn fmt_e(x: f64, prec: usize) -> String {
    if !x.is_finite() {
        return non_finite(x);
    }
    let s = format!("{x:.prec$e}");
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let sign = if exp < 0 { '-' } else { '+' };
    format!("{mant}E{sign}{:02}", exp.abs())
}

/// `%.{prec}G`: the shorter of `%E` and `%f` by C's rule, trailing zeros removed.
pub(crate) fn fmt_g(x: f64, prec: usize) -> String {
    if !x.is_finite() {
        return non_finite(x);
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

fn non_finite(x: f64) -> String {
    if x.is_nan() {
        "NAN".into()
    } else if x > 0.0 {
        "INF".into()
    } else {
        "-INF".into()
    }
}

#[cfg(test)]
mod tests {
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
}
