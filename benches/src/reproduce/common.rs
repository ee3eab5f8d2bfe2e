//! Helpers and constants every paper's experiments share.

use reconverge_backend::{Launch, Strategy};
use serde_json::Value;

use super::page::{columns_per, fmt_num, num};
use super::{Meas, PlainBest, x_plain};

/// Threads per block everywhere (the papers' 256; MCML 128).
pub const BLOCK: u32 = 256;

/// What independent thread scheduling changed, for every page's closing section.
pub const SINCE_VOLTA: &str = "Since Volta (2017) each thread has its own program counter (independent thread scheduling): a divergent warp still issues each path with the other lanes masked off, so SIMD efficiency is lost exactly as on G80/Fermi, but the paths no longer have to reconverge at the immediate post-dominator, and warp votes need an explicit member mask (`vote.sync`), which reconverge's strategies pass.";

/// `a / b` where both are known and `b` is positive.
pub fn x2(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(a), Some(b)) if b > 0.0 => Some(a / b),
        _ => None,
    }
}

/// A table number, or "n/a".
pub fn f(v: Option<f64>) -> String {
    v.map_or("n/a".into(), fmt_num)
}

/// A fraction as a JSON percentage.
pub fn pct(v: Option<f64>) -> Value {
    num(v.map(|x| 100.0 * x))
}

/// The driver's columns for the kernels named `kernels`: each one's registers, then each
/// one's occupancy. [`super::page::Table::markdown`] knows them by these "regs" and "occ"
/// prefixes (their missing values read "n/a (CPU)"), so headings come only from here.
pub fn driver_columns(kernels: &[&str]) -> impl Iterator<Item = String> {
    let regs = kernels.iter().map(|k| format!("regs {k}"));
    regs.chain(kernels.iter().map(|k| format!("occ {k} %")))
}

/// The cells under [`driver_columns`]: registers, then occupancy, of each (measurement,
/// pass) in order.
pub fn driver_cells(kernels: &[(&Meas, usize)]) -> impl Iterator<Item = Value> {
    let regs = kernels.iter().map(|(m, pass)| num(m.regs(*pass)));
    regs.chain(kernels.iter().map(|(m, pass)| pct(m.occ(*pass))))
}

/// The columns of the best plain kernel (issue 40: the reference every strategy is stated
/// against): its time, its schedule, then each of `names`' ratio to it. They come only from
/// the GPU's plain kernels; [`super::page::Table::markdown`] knows them by the "plain" prefix
/// and "x plain" suffix and prints their missing values as the device columns' "n/a (CPU)".
pub fn plain_columns(names: &[&str]) -> Vec<String> {
    let mut columns = vec!["plain best ms".to_string(), "plain best kernel".to_string()];
    columns.extend(names.iter().map(|n| format!("{n} x plain")));
    columns
}

/// The cells under [`plain_columns`]: the best plain kernel's time and schedule, then each
/// measurement's plain time over its own (above 1: faster than the plain kernel).
pub fn plain_cells(measured: &[Meas], plain: Option<&PlainBest>) -> Vec<Value> {
    let mut cells = vec![
        num(plain.map(PlainBest::ms)),
        plain.map_or(Value::Null, |p| Value::String(p.schedule.into())),
    ];
    cells.extend(measured.iter().map(|m| num(x_plain(m.ms(), plain))));
    cells
}

/// Whether every run that ran gave the reference's outputs, the best plain kernel's included.
pub fn all_equal(measured: &[Meas], plain: Option<&PlainBest>) -> bool {
    measured.iter().all(|m| m.outputs_match || !m.ok()) && plain.is_none_or(|p| p.outputs_match)
}

/// A page's first finding against the best plain kernel at one setting (`at`, e.g.
/// "r = 8"): every strategy's ratio to it, or, without plain kernels (the CPU backend), the
/// sentence that says the reference is GPU-only.
pub fn plain_finding(
    at: &str,
    names: &[&str],
    measured: &[Meas],
    plain: Option<&PlainBest>,
) -> String {
    match plain {
        Some(p) => {
            let ratios: Vec<String> = names
                .iter()
                .zip(measured)
                .map(|(n, m)| format!("{n} {}x", f(x_plain(m.ms(), Some(p)))))
                .collect();
            format!(
                "At {at} against the best plain kernel ({}, {} ms; above 1 is faster): {}.",
                p.schedule,
                fmt_num(p.ms()),
                ratios.join(", ")
            )
        }
        None => format!(
            "At {at}: the best plain kernel is GPU-only (the CPU backend has none); the ratios below are to reconverge's baseline."
        ),
    }
}

/// The headings of [`side_by_side_cells`] for a page of two strategies named `base` and
/// `other`.
pub fn side_by_side_columns(base: &str, other: &str) -> Vec<String> {
    let names = [base, other];
    let mut columns: Vec<String> = columns_per(&names, "ms").collect();
    columns.extend(names.map(|n| format!("SIMD eff {n}")));
    columns.extend(driver_columns(&names));
    columns.push("outputs equal".into());
    columns
}

/// Two strategies' one-pass kernels side by side: their times, the model's SIMD efficiency,
/// the driver's registers and occupancy, then whether `other`'s outputs equal `base`'s.
pub fn side_by_side_cells(base: &Meas, other: &Meas) -> Vec<Value> {
    let mut cells = vec![
        num(base.ms()),
        num(other.ms()),
        num(base.simd()),
        num(other.simd()),
    ];
    cells.extend(driver_cells(&[(base, 0), (other, 0)]));
    cells.push(Value::Bool(other.outputs_match));
    cells
}

/// The baseline, then `strategies`: a page's list, measured against its first.
pub fn baseline_then(strategies: impl IntoIterator<Item = Strategy>) -> Vec<Strategy> {
    std::iter::once(Strategy::BASELINE)
        .chain(strategies)
        .collect()
}

/// One item per thread in blocks of [`BLOCK`] (one block if `items` does not fit).
pub fn launch(items: u32) -> Launch {
    Launch::one_item_per_thread(items, BLOCK).unwrap_or(Launch {
        threads_per_block: BLOCK,
        blocks: 1,
    })
}

/// The item of `items` with the lowest `key` (total order: NaN last).
pub fn lowest<T>(items: impl IntoIterator<Item = T>, key: impl Fn(&T) -> f64) -> Option<T> {
    items.into_iter().min_by(|a, b| key(a).total_cmp(&key(b)))
}

/// The item of `items` with the highest `key` (total order).
pub fn highest<T>(items: impl IntoIterator<Item = T>, key: impl Fn(&T) -> f64) -> Option<T> {
    items.into_iter().max_by(|a, b| key(a).total_cmp(&key(b)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reproduce::page::Table;

    fn meas(ms: f64) -> Meas {
        Meas {
            median_s: ms / 1e3,
            outputs_match: true,
            ..Meas::default()
        }
    }

    /// A strategy at 0.5 ms against a plain kernel at 1.0 ms is 2x faster than it, one at
    /// 4.0 ms a quarter as fast: the plain time over the strategy's, never the other way.
    #[test]
    fn ratios_to_the_plain_kernel_are_plain_over_strategy() {
        let plain = PlainBest {
            schedule: "grid_stride",
            median_s: 1.0e-3,
            outputs_match: true,
        };
        let cells = plain_cells(&[meas(0.5), meas(4.0)], Some(&plain));
        let mut table = Table::with_columns(plain_columns(&["fast", "slow"]));
        table.push(cells);
        let md = table.markdown("n/a (CPU)");
        assert!(
            md.contains("| plain best ms | plain best kernel | fast x plain | slow x plain |"),
            "{md}"
        );
        assert!(
            md.contains("| 1.000 | grid_stride | 2.000 | 0.250 |"),
            "{md}"
        );
    }

    /// Without plain kernels (the CPU backend) the columns are there and say so.
    #[test]
    fn without_plain_kernels_the_columns_read_cpu() {
        let mut table = Table::with_columns(plain_columns(&["baseline"]));
        table.push(plain_cells(&[meas(2.0)], None));
        let md = table.markdown("n/a (CPU)");
        assert!(md.contains("| n/a (CPU) | n/a (CPU) | n/a (CPU) |"), "{md}");
        // A strategy that did not run has no ratio even where the plain kernel ran.
        assert_eq!(x_plain(None, None), None);
        assert_eq!(x_plain(Some(0.0), None), None);
    }
}
