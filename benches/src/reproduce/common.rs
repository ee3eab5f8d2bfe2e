//! Helpers and constants every paper's experiments share.

use reconverge_backend::{Launch, Strategy};
use serde_json::Value;

use super::page::{fmt_num, num};

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

/// The baseline, then `strategies`: a page's list, measured against its first.
pub fn baseline_then(strategies: impl IntoIterator<Item = Strategy>) -> Vec<Strategy> {
    std::iter::once(Strategy::Baseline)
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
