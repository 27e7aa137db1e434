//! Numbers in messages and tables, in a short form: `0.11`, `2.5e-6`, `5e-324`, never the 330
//! digits that Rust's plain `{}` writes for a tiny or huge `f64`.

/// An `f64` that displays in a short form: as Rust's shortest round-trip decimal (`0.11`,
/// `1234.5`) for magnitudes in [1e-4, 1e16), and in exponent form (`5e-324`, `1e300`,
/// `2.5e-6`) outside that range; zero, infinities and NaN as `{}` writes them. The value is
/// read back exactly from either form.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Short(pub f64);

impl std::fmt::Display for Short {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let x = self.0;
        let text = if x == 0.0 || !x.is_finite() || (1e-4..1e16).contains(&x.abs()) {
            format!("{x}")
        } else {
            format!("{x:e}")
        };
        f.pad(&text)
    }
}

/// An `f64` that displays with four significant digits, for figures' legends: `5.886`,
/// `0.002929`, `2.930e-8` (exponent form under 1e-3 and from 1e6); zero, infinities and NaN as
/// `{}` writes them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sig(pub f64);

impl std::fmt::Display for Sig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let x = self.0;
        let text = if x == 0.0 || !x.is_finite() {
            format!("{x}")
        } else if (1e-3..1e6).contains(&x.abs()) {
            let decimals = (3 - x.abs().log10().floor() as i32).max(0) as usize;
            format!("{x:.decimals$}")
        } else {
            format!("{x:.3e}")
        };
        f.pad(&text)
    }
}

/// `x` in the short form of [`Short`].
pub fn short(x: f64) -> String {
    Short(x).to_string()
}

/// Every number of `xs` in the short form, as `[a, b, c]`.
pub fn short_list(xs: &[f64]) -> String {
    let parts: Vec<String> = xs.iter().map(|&x| short(x)).collect();
    format!("[{}]", parts.join(", "))
}

/// A CSV row of numbers: each as Rust's shortest round-trip decimal (read back exactly), a
/// non-finite one (a distance with nothing in reach) as an empty field: an output never holds
/// NaN or inf.
pub fn csv_row(values: &[f64]) -> String {
    let fields: Vec<String> = values
        .iter()
        .map(|v| {
            if v.is_finite() {
                v.to_string()
            } else {
                String::new()
            }
        })
        .collect();
    fields.join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiny_and_huge_numbers_are_short_and_read_back_exactly() {
        for (x, text) in [
            (5e-324, "5e-324"),
            (1e300, "1e300"),
            (0.11, "0.11"),
            (-2.5e-6, "-2.5e-6"),
            (0.0, "0"),
            (1234.5, "1234.5"),
            (f64::INFINITY, "inf"),
        ] {
            assert_eq!(short(x), text);
            assert_eq!(short(x).parse::<f64>().unwrap(), x);
        }
        assert_eq!(format!("{:>8}", Short(0.5)), "     0.5");
        assert_eq!(short_list(&[1e-320, 1.0]), "[1e-320, 1]");
    }

    #[test]
    fn four_significant_digits() {
        use super::Sig;
        let cases = [
            (5.885999999999999, "5.886"),
            (1.9620000000000004, "1.962"),
            (0.000292893, "2.929e-4"),
            (0.00292893, "0.002929"),
            (2.93e-8, "2.930e-8"),
            (-9.81, "-9.810"),
            (1234.5678, "1235"),
            (0.0, "0"),
        ];
        for (x, text) in cases {
            assert_eq!(Sig(x).to_string(), text, "{x}");
        }
    }
}
