//! The host the CPU backend runs on, in words, for reports that say where timings come from.

/// The CPU's model name from `/proc/cpuinfo`, or "unknown CPU" where there is none (not
/// Linux, or no `model name` line).
pub fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into())
}

#[cfg(test)]
mod tests {
    #[test]
    fn names_a_model_or_says_unknown() {
        let m = super::cpu_model();
        assert!(!m.is_empty());
        assert_eq!(m, m.trim(), "no padding from the cpuinfo line");
    }
}
