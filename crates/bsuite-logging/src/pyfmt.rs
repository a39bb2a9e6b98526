//! Python's `repr` of floats, which bsuite's CSV files and reference traces use.
//!
//! Rust's `{}` prints the same shortest round-trip digits but never switches to exponent
//! notation and drops `.0`; Python writes `1e-05`, `1e+16` and `1.0`.
//!
//! ```
//! use bsuite_logging::pyfmt::float_repr;
//!
//! assert_eq!(float_repr(0.1 + 0.2), "0.30000000000000004");
//! assert_eq!(float_repr(1e-5), "1e-05");
//! assert_eq!(float_repr(-54.0), "-54.0");
//! ```

use std::fmt::Write;

/// `repr(x)` for a Python float.
pub fn float_repr(x: f64) -> String {
    let mut s = String::new();
    write_float_repr(&mut s, x);
    s
}

/// Appends `repr(x)` to `out`.
pub fn write_float_repr(out: &mut String, x: f64) {
    if x.is_nan() {
        out.push_str("nan");
        return;
    }
    if x.is_infinite() {
        out.push_str(if x > 0.0 { "inf" } else { "-inf" });
        return;
    }
    if x == 0.0 {
        out.push_str(if x.is_sign_negative() { "-0.0" } else { "0.0" });
        return;
    }
    // Fast path for integral values below 1e15 (most observations and counters), which
    // Python writes in fixed notation with a trailing ".0".
    if x.fract() == 0.0 && x.abs() < 1e15 {
        let _ = write!(out, "{}.0", x as i64);
        return;
    }
    // `{:e}` gives the shortest round-trip digit count, but breaks exact ties upwards while
    // Python picks the nearest string with ties to even; re-rounding x correctly (Rust's
    // exact formatting rounds half to even) to that many digits gives Python's choice.
    let shortest = format!("{:e}", x.abs());
    let num_digits = shortest
        .split_once('e')
        .expect("exponent")
        .0
        .replace('.', "")
        .len();
    let nearest = format!("{:.*e}", num_digits - 1, x.abs());
    let sci = if nearest.parse::<f64>() == Ok(x.abs()) {
        nearest
    } else {
        shortest
    };
    let (mantissa, exp) = sci.split_once('e').expect("exponent present");
    let exp: i32 = exp.parse().expect("integer exponent");
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    if x < 0.0 {
        out.push('-');
    }
    if (-4..16).contains(&exp) {
        if exp < 0 {
            out.push_str("0.");
            for _ in 0..(-exp - 1) {
                out.push('0');
            }
            out.push_str(&digits);
        } else {
            let int_len = exp as usize + 1;
            if digits.len() <= int_len {
                out.push_str(&digits);
                for _ in digits.len()..int_len {
                    out.push('0');
                }
                out.push_str(".0");
            } else {
                out.push_str(&digits[..int_len]);
                out.push('.');
                out.push_str(&digits[int_len..]);
            }
        }
    } else {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let sign = if exp < 0 { '-' } else { '+' };
        let _ = write!(out, "e{sign}{:02}", exp.abs());
    }
}

#[cfg(test)]
mod tests {
    use super::float_repr;

    #[test]
    fn matches_python_repr() {
        let cases = [
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (1.0, "1.0"),
            (-1.0, "-1.0"),
            (0.1, "0.1"),
            (1e-4, "0.0001"),
            (1e-5, "1e-05"),
            (1.5e-7, "1.5e-07"),
            (123456789012345.6, "123456789012345.6"),
            (1e15, "1000000000000000.0"),
            (1e16, "1e+16"),
            (1.2345e100, "1.2345e+100"),
            (-54.2000000000005, "-54.2000000000005"),
            (0.30000000000000004, "0.30000000000000004"),
            (4952.799999999973, "4952.799999999973"),
            (f64::NAN, "nan"),
            (f64::NEG_INFINITY, "-inf"),
            (5e-324, "5e-324"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (0.00012, "0.00012"),
            // An exact tie between two shortest strings: Python rounds half to even.
            (0.09332656860351563, "0.09332656860351562"),
        ];
        for (x, want) in cases {
            assert_eq!(float_repr(x), want, "{x:?}");
        }
    }
}
