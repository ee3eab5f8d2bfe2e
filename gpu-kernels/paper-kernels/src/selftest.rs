//! The self-tests' CPU reference and checks.
//!
//! The device kernels `warp_selftest`, `libm_selftest` and `libmf_selftest` run the generic
//! functions of `device/src/selftest.rs` ([`warp_ops`], [`libm_row`], [`mcml_math_row`]) on the
//! GPU; this module includes that very file and runs it on the CPU — the warp operations on
//! the reference SIMT model [`ModelWarp`] — so that both sides can be compared bit for bit.
//! `fastmath_selftest` ([`fast_math_row`]) is not bit-identical by design: [`check_fast_math`]
//! measures its errors and holds them to the PTX ISA's stated bounds.

use reconverge_simt::{ModelWarp, WARP_SIZE};

#[allow(missing_docs)] // documented in the device crate, whose file this is
#[path = "../device/src/selftest.rs"]
mod shared;

pub use shared::{
    LIBM_OUTPUTS, WARP_OPS, WARP_OUTPUTS, fast_math_divisor, fast_math_row, libm_row,
    mcml_math_row, warp_ops,
};

/// The names of the `warp_selftest` output slots, for reports.
pub const WARP_OUTPUT_NAMES: [&str; WARP_OUTPUTS] = [
    "lane id",
    "ballot",
    "shuffle",
    "read_lane",
    "half-warp shuffle",
    "any/all",
    "popc(ballot)",
    "block_fetch_add old",
    "block counter",
];

/// The names of the libm self-test's functions, in output order.
pub const LIBM_NAMES: [&str; LIBM_OUTPUTS] = ["log", "sin", "cos", "sqrt", "exp"];

/// The names of the f32 MCML math self-test's functions ([`mcml_math_row`]), in output order.
pub const MCML_MATH_NAMES: [&str; LIBM_OUTPUTS] = [
    "-ln(draw)",
    "cos(turn)",
    "sin(turn)",
    "sqrt_rn",
    "libm acosf",
];

/// The fast-math self-test's operations ([`fast_math_row`]), in output order, with their PTX
/// instructions.
pub const FAST_MATH_NAMES: [&str; LIBM_OUTPUTS] = [
    "-ln(draw) lg2.approx",
    "cos(turn) cos.approx",
    "sin(turn) sin.approx",
    "sqrt sqrt.approx.ftz",
    "x / y div.approx.ftz",
];

/// The bound each fast-math operation is held to, as [`check_fast_math`] applies it, in
/// [`FAST_MATH_NAMES`]' order. `y` is the exact value (f64, or the correctly rounded f32
/// quotient for the division).
pub const FAST_MATH_BOUNDS: [&str; LIBM_OUTPUTS] = [
    "|err| <= max(2^-22 ln 2, 2^-22 |y|) + 2^-23 |y| (PTX ISA 9.1 §9.7.3.20 lg2 plus the product's rounding), and >= 0",
    "|err| <= 2^-20.5 + 2^-21 (§9.7.3.19 cos on [-2pi, 2pi] plus rounding of 2pi r)",
    "|err| <= 2^-20.5 + 2^-21 (§9.7.3.18 sin on [-2pi, 2pi] plus rounding of 2pi r)",
    "|err| / y <= 2^-23 (§9.7.3.15 sqrt.approx); a subnormal input gives 0 (.ftz)",
    "|err| <= 2 ulp of the correctly rounded f32 quotient (§9.7.3.8 div.approx, |y| in [2^-126, 2^126]); a subnormal x or quotient gives 0 (.ftz)",
];

/// How far one fast-math operation's GPU results are from the exact ones.
#[derive(Clone, Debug, PartialEq)]
pub struct ToleranceCheck {
    /// The operation ([`FAST_MATH_NAMES`]).
    pub name: &'static str,
    /// The bound it is held to ([`FAST_MATH_BOUNDS`]).
    pub bound: &'static str,
    /// Values compared (inputs whose exact result is finite).
    pub compared: usize,
    /// Values beyond the bound.
    pub outside: usize,
    /// Largest absolute difference from the exact CPU f32 operation.
    pub max_abs: f64,
    /// Largest relative difference from the exact CPU f32 operation (where it is not 0).
    pub max_rel: f64,
    /// Largest error as a fraction of its bound: at most 1 passes.
    pub worst_of_bound: f64,
    /// The first value beyond the bound: index, GPU value, exact value.
    pub first: Option<(usize, f64, f64)>,
}

impl ToleranceCheck {
    /// Whether every compared value is within the bound (and something was compared).
    pub fn passed(&self) -> bool {
        self.outside == 0 && self.compared > 0
    }
}

/// One unit in the last place of the f32 `v` (its binade's spacing; 2^-149 among subnormals).
fn ulp_f32(v: f32) -> f64 {
    let a = v.abs();
    if a < f32::MIN_POSITIVE {
        f64::from(f32::from_bits(1))
    } else {
        f64::from(f32::from_bits(a.to_bits() & 0x7f80_0000)) * f64::from(f32::EPSILON)
    }
}

/// Compares the output of `fastmath_selftest` (MCML's fast-math operations, [`fast_math_row`])
/// with the exact results, one [`ToleranceCheck`] per operation.
///
/// Each operation is held to the PTX ISA's bound for its instruction ([`FAST_MATH_BOUNDS`]).
/// The logarithm, cosine, sine and square root are measured against f64 (`libm`, or the
/// IEEE square root) of the very f32 argument. The division is measured against the
/// correctly rounded f32 quotient, as PTX states the bound. Inputs whose exact result is not
/// finite (the inputs' infinities and NaN, an overflowing quotient) are not compared. The
/// differences from the exact CPU f32 operations (the row on the CPU, where `FastF32` is f32)
/// are reported beside the bounds.
pub fn check_fast_math(inputs: &[f32], gpu: &[f32]) -> Vec<ToleranceCheck> {
    let mut checks: Vec<ToleranceCheck> = FAST_MATH_NAMES
        .iter()
        .zip(FAST_MATH_BOUNDS)
        .map(|(&name, bound)| ToleranceCheck {
            name,
            bound,
            compared: 0,
            outside: 0,
            max_abs: 0.0,
            max_rel: 0.0,
            worst_of_bound: 0.0,
            first: None,
        })
        .collect();
    let turn_exact = |t: f64| 2.0 * core::f64::consts::PI * t;
    for (i, &x) in inputs.iter().enumerate() {
        let cpu = fast_math_row(x);
        let draw = x.to_bits();
        let k = f64::from((draw >> 8) + 1);
        let t = f64::from(reconverge_workloads::rng::u32_to_f32_co(draw));
        let a = f32::from_bits(draw & 0x7fff_ffff);
        // (exact value, error measure of a GPU value as a fraction of the bound)
        let neg_ln = -libm::log(k / 16_777_216.0);
        let neg_ln_bound = (libm::exp2(-22.0) * core::f64::consts::LN_2)
            .max(libm::exp2(-22.0) * neg_ln)
            + libm::exp2(-23.0) * neg_ln;
        let trig_bound = libm::exp2(-20.5) + libm::exp2(-21.0);
        let quotient = x / fast_math_divisor(x);
        let exact: [Option<f64>; LIBM_OUTPUTS] = [
            Some(neg_ln),
            Some(libm::cos(turn_exact(t))),
            Some(libm::sin(turn_exact(t))),
            a.is_finite().then(|| libm::sqrt(f64::from(a))),
            quotient.is_finite().then_some(f64::from(quotient)),
        ];
        for (op, check) in checks.iter_mut().enumerate() {
            let Some(y) = exact[op] else { continue };
            let g = gpu
                .get(i * LIBM_OUTPUTS + op)
                .map_or(f64::NAN, |&v| f64::from(v));
            let err = (g - y).abs();
            // Where the instruction flushes to zero (`.ftz`), only 0 is right.
            let must_be_zero = if g == 0.0 { 0.0 } else { f64::INFINITY };
            let of_bound = match op {
                0 if g < 0.0 => f64::INFINITY,
                0 => err / neg_ln_bound,
                1 | 2 => err / trig_bound,
                3 if y == 0.0 || a < f32::MIN_POSITIVE => must_be_zero,
                3 => err / y / libm::exp2(-23.0),
                _ if x.abs() < f32::MIN_POSITIVE || quotient.abs() < f32::MIN_POSITIVE => {
                    must_be_zero
                }
                _ => err / ulp_f32(quotient) / 2.0,
            };
            let of_bound = if of_bound.is_nan() {
                f64::INFINITY
            } else {
                of_bound
            };
            check.compared += 1;
            check.worst_of_bound = check.worst_of_bound.max(of_bound);
            if of_bound > 1.0 {
                check.outside += 1;
                check.first.get_or_insert((i, g, y));
            }
            let c = f64::from(cpu[op]);
            let d = (g - c).abs();
            if d.is_finite() {
                check.max_abs = check.max_abs.max(d);
                if c != 0.0 {
                    check.max_rel = check.max_rel.max(d / c.abs());
                }
            }
        }
    }
    checks
}

/// What `warp_selftest` must write for slots `0..WARP_OPS` of every thread, computed on the
/// model warp; the two `block_fetch_add` slots are left 0 (their per-warp values depend on the
/// order in which warps reach the atomic; [`check_warp_outputs`] checks them by their
/// invariants instead).
pub fn warp_reference(threads_per_block: u32, blocks: u32, seed: u32) -> Vec<u32> {
    let threads = blocks as usize * threads_per_block as usize;
    let mut out = vec![0u32; threads * WARP_OUTPUTS];
    let warps_per_block = threads_per_block / WARP_SIZE;
    for block in 0..blocks {
        for w in 0..warps_per_block {
            let mut warp = ModelWarp::new();
            let ops = warp_ops(&mut warp, seed.wrapping_add(block));
            for lane in 0..WARP_SIZE as usize {
                let thread = (block * threads_per_block + w * WARP_SIZE) as usize + lane;
                for (j, op) in ops.iter().enumerate() {
                    out[thread * WARP_OUTPUTS + j] = op[lane];
                }
            }
        }
    }
    out
}

/// The result of comparing one output slot (or one function) between GPU and CPU.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SlotCheck {
    /// The slot's name.
    pub name: &'static str,
    /// Values compared.
    pub compared: usize,
    /// Values that differ.
    pub differ: usize,
    /// The first difference: index, GPU bits, CPU bits.
    pub first: Option<(usize, u64, u64)>,
}

impl SlotCheck {
    /// Whether every value matched.
    pub fn passed(&self) -> bool {
        self.differ == 0 && self.compared > 0
    }
}

/// Compares `warp_selftest` output `gpu` with [`warp_reference`], slot by slot. Slots
/// `0..WARP_OPS` must be bit-identical; for `block_fetch_add` every lane of a warp must see the
/// same old value, the old values of a block's warps must be the prefix sums of the amounts
/// added (`warp_in_block + 1`) in some order, and the final counter must be their total.
pub fn check_warp_outputs(
    gpu: &[u32],
    threads_per_block: u32,
    blocks: u32,
    seed: u32,
) -> Vec<SlotCheck> {
    let cpu = warp_reference(threads_per_block, blocks, seed);
    let threads = cpu.len() / WARP_OUTPUTS;
    let mut checks = unchecked(&WARP_OUTPUT_NAMES);
    let mut note = |slot: usize, index: usize, ok: bool, g: u32, c: u32| {
        let s = &mut checks[slot];
        s.compared += 1;
        if !ok {
            s.differ += 1;
            s.first.get_or_insert((index, u64::from(g), u64::from(c)));
        }
    };
    let value = |t: usize, j: usize| gpu.get(t * WARP_OUTPUTS + j).copied();
    for t in 0..threads {
        for j in 0..WARP_OPS {
            let c = cpu[t * WARP_OUTPUTS + j];
            let g = value(t, j);
            note(j, t, g == Some(c), g.unwrap_or(u32::MAX), c);
        }
    }
    let warps = threads_per_block / WARP_SIZE;
    let total: u32 = (1..=warps).sum();
    for b in 0..blocks as usize {
        let first_thread = b * threads_per_block as usize;
        let mut olds: Vec<(u32, u32)> = Vec::new();
        for w in 0..warps as usize {
            let t0 = first_thread + w * WARP_SIZE as usize;
            let old = value(t0, WARP_OPS).unwrap_or(u32::MAX);
            for lane in 0..WARP_SIZE as usize {
                let t = t0 + lane;
                let g = value(t, WARP_OPS).unwrap_or(u32::MAX);
                note(WARP_OPS, t, g == old, g, old);
                let f = value(t, WARP_OPS + 1).unwrap_or(u32::MAX);
                note(WARP_OPS + 1, t, f == total, f, total);
            }
            olds.push((old, w as u32 + 1));
        }
        olds.sort_unstable();
        let mut expect = 0u32;
        for (w, &(old, amount)) in olds.iter().enumerate() {
            note(WARP_OPS, first_thread + w, old == expect, old, expect);
            expect = expect.wrapping_add(amount);
        }
    }
    checks
}

/// Inputs of the libm self-test: special values (±0, ±∞, NaN, subnormals, the extremes, large
/// arguments of sin/cos) followed by a deterministic spread over many magnitudes.
pub fn libm_inputs(n: usize) -> Vec<f64> {
    let specials = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        f64::MIN_POSITIVE,
        f64::MIN_POSITIVE / 4.0,
        f64::MAX,
        f64::EPSILON,
        core::f64::consts::PI,
        1e22,
        709.78,
        -745.1,
    ];
    let mut out: Vec<f64> = specials.iter().copied().take(n).collect();
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    while out.len() < n {
        // splitmix64: a fixed, portable sequence.
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        let unit = (z >> 11) as f64 / (1u64 << 53) as f64;
        // Mostly moderate magnitudes (where the functions are used), some huge or tiny.
        let exponent = ((z & 0xff) as i32 % 64) - 32;
        let sign = if z & 0x100 != 0 { -1.0 } else { 1.0 };
        out.push(sign * unit * libm::exp2(f64::from(exponent)));
    }
    out
}

/// Bits of a value for comparison: every NaN compares equal to every NaN (the GPU's canonical
/// NaN and x86's differ in sign and payload, which no computation here depends on).
fn canonical_bits_f64(x: f64) -> u64 {
    if x.is_nan() { u64::MAX } else { x.to_bits() }
}

fn canonical_bits_f32(x: f32) -> u64 {
    if x.is_nan() {
        u64::MAX
    } else {
        u64::from(x.to_bits())
    }
}

/// Compares the `f64` libm self-test output `gpu` (`LIBM_OUTPUTS` per input) with
/// [`libm_row`] of `inputs` on the CPU, one [`SlotCheck`] per function.
pub fn check_libm_f64(inputs: &[f64], gpu: &[f64]) -> Vec<SlotCheck> {
    let rows = inputs.iter().map(|&x| libm_row(x).map(canonical_bits_f64));
    check_rows(&LIBM_NAMES, rows, |i| {
        gpu.get(i).map(|&v| canonical_bits_f64(v))
    })
}

/// Compares the output of `libmf_selftest` (MCML's f32 math, [`mcml_math_row`]) with the
/// same functions run on the CPU, as [`check_libm_f64`].
pub fn check_mcml_math(inputs: &[f32], gpu: &[f32]) -> Vec<SlotCheck> {
    let rows = inputs
        .iter()
        .map(|&x| mcml_math_row(x).map(canonical_bits_f32));
    check_rows(&MCML_MATH_NAMES, rows, |i| {
        gpu.get(i).map(|&v| canonical_bits_f32(v))
    })
}

/// One check per slot name, nothing compared yet.
fn unchecked(names: &[&'static str]) -> Vec<SlotCheck> {
    names
        .iter()
        .map(|&name| SlotCheck {
            name,
            compared: 0,
            differ: 0,
            first: None,
        })
        .collect()
}

fn check_rows(
    names: &[&'static str; LIBM_OUTPUTS],
    rows: impl Iterator<Item = [u64; LIBM_OUTPUTS]>,
    gpu: impl Fn(usize) -> Option<u64>,
) -> Vec<SlotCheck> {
    let mut checks = unchecked(names);
    for (i, row) in rows.enumerate() {
        for (k, &c) in row.iter().enumerate() {
            let g = gpu(i * LIBM_OUTPUTS + k);
            let s = &mut checks[k];
            s.compared += 1;
            if g != Some(c) {
                s.differ += 1;
                s.first.get_or_insert((i, g.unwrap_or(u64::MAX - 1), c));
            }
        }
    }
    checks
}

/// The self-test kernels run on a GPU (feature `cuda`; the context must have loaded them, as
/// [`crate::context`] does).
#[cfg(feature = "cuda")]
pub trait SelfTests {
    /// Runs `warp_selftest` on `blocks` blocks of `threads_per_block` threads (in the order of
    /// `Launch::new`): every thread's [`WARP_OUTPUTS`] values (compare with
    /// [`check_warp_outputs`]).
    ///
    /// # Errors
    /// A bad launch shape, an allocation or launch failure.
    fn warp_selftest(
        &self,
        threads_per_block: u32,
        blocks: u32,
        seed: u32,
    ) -> Result<Timed<Vec<u32>>, GpuError>;

    /// Runs `libm_selftest`: log, sin, cos, sqrt, exp of each input ([`LIBM_OUTPUTS`] per
    /// input; compare with [`check_libm_f64`]).
    ///
    /// # Errors
    /// Too many inputs for `u32` indexing, an allocation or launch failure.
    fn libm_selftest(&self, inputs: &[f64]) -> Result<Timed<Vec<f64>>, GpuError>;

    /// Runs `libmf_selftest`: MCML's f32 math ([`mcml_math_row`]) of each input, as
    /// [`SelfTests::libm_selftest`] runs `libm`'s f64 functions.
    ///
    /// # Errors
    /// As [`SelfTests::libm_selftest`].
    fn libmf_selftest(&self, inputs: &[f32]) -> Result<Timed<Vec<f32>>, GpuError>;

    /// Runs `fastmath_selftest`: MCML's fast-math operations ([`fast_math_row`]) of each
    /// input, as [`SelfTests::libm_selftest`] runs `libm`'s f64 functions (compare with
    /// [`check_fast_math`]).
    ///
    /// # Errors
    /// As [`SelfTests::libm_selftest`].
    fn fastmath_selftest(&self, inputs: &[f32]) -> Result<Timed<Vec<f32>>, GpuError>;
}

#[cfg(feature = "cuda")]
use reconverge_gpu::{GpuContext, GpuError, LaunchShape, Timed};

#[cfg(feature = "cuda")]
impl SelfTests for GpuContext {
    fn warp_selftest(
        &self,
        threads_per_block: u32,
        blocks: u32,
        seed: u32,
    ) -> Result<Timed<Vec<u32>>, GpuError> {
        use reconverge_gpu::cudarc::driver::PushKernelArg;
        const K: &str = "warp_selftest";
        let len = LaunchShape::new(threads_per_block, blocks).threads() as usize * WARP_OUTPUTS;
        let len32 = u32::try_from(len).map_err(|_| GpuError::InvalidInput {
            kernel: K.into(),
            reason: format!("{len} outputs exceed u32 indexing"),
        })?;
        let mut out = self.zeros::<u32>(len, "warp_selftest output")?;
        let ms = self.timed_launch(K, LaunchShape::new(threads_per_block, blocks), |s, f, c| {
            let mut b = s.launch_builder(f);
            b.arg(&mut out).arg(&len32).arg(&seed);
            // SAFETY: the signature is `(out: *mut u32, len: u32, seed: u32)`; `out` has `len`
            // elements.
            unsafe { b.launch(c) }.map(|_| ())
        })?;
        Ok(Timed {
            value: self.download(&out)?,
            kernel_ms: ms,
        })
    }

    fn libm_selftest(&self, inputs: &[f64]) -> Result<Timed<Vec<f64>>, GpuError> {
        libm_kernel(self, "libm_selftest", inputs)
    }

    fn libmf_selftest(&self, inputs: &[f32]) -> Result<Timed<Vec<f32>>, GpuError> {
        libm_kernel(self, "libmf_selftest", inputs)
    }

    fn fastmath_selftest(&self, inputs: &[f32]) -> Result<Timed<Vec<f32>>, GpuError> {
        libm_kernel(self, "fastmath_selftest", inputs)
    }
}

/// Runs a self-test kernel of signature `(x: *const T, out: *mut T, n: u32)`.
#[cfg(feature = "cuda")]
fn libm_kernel<T>(
    gpu: &GpuContext,
    kernel: &'static str,
    inputs: &[T],
) -> Result<Timed<Vec<T>>, GpuError>
where
    T: reconverge_gpu::cudarc::driver::DeviceRepr + reconverge_gpu::cudarc::driver::ValidAsZeroBits,
{
    use reconverge_gpu::cudarc::driver::PushKernelArg;
    let n = u32::try_from(inputs.len())
        .ok()
        .filter(|&n| n > 0 && (n as usize).checked_mul(LIBM_OUTPUTS).is_some())
        .ok_or_else(|| GpuError::InvalidInput {
            kernel: kernel.into(),
            reason: format!("{} inputs: need 1 to 2^32 - 1", inputs.len()),
        })?;
    let x = gpu.upload(inputs, "libm inputs")?;
    let mut out = gpu.zeros::<T>(inputs.len() * LIBM_OUTPUTS, "libm outputs")?;
    let threads = 256;
    let shape = LaunchShape::new(threads, n.div_ceil(threads));
    let ms = gpu.timed_launch(kernel, shape, |s, f, c| {
        let mut b = s.launch_builder(f);
        b.arg(&x).arg(&mut out).arg(&n);
        // SAFETY: the signature is `(x: *const T, out: *mut T, n: u32)`; `x` has `n` and
        // `out` `5 n` elements.
        unsafe { b.launch(c) }.map(|_| ())
    })?;
    Ok(Timed {
        value: gpu.download(&out)?,
        kernel_ms: ms,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reference_passes_its_own_check() {
        let (blocks, tpb, seed) = (3, 96, 11);
        let mut out = warp_reference(tpb, blocks, seed);
        // Fill the block_fetch_add slots as a GPU could: warps in reverse order.
        for b in 0..blocks as usize {
            let warps = tpb as usize / 32;
            let mut acc = 0;
            for w in (0..warps).rev() {
                for lane in 0..32 {
                    let t = b * tpb as usize + w * 32 + lane;
                    out[t * WARP_OUTPUTS + WARP_OPS] = acc;
                    out[t * WARP_OUTPUTS + WARP_OPS + 1] = 6;
                }
                acc += w as u32 + 1;
            }
        }
        let checks = check_warp_outputs(&out, tpb, blocks, seed);
        assert!(checks.iter().all(SlotCheck::passed), "{checks:?}");
        out[5 * WARP_OUTPUTS + 2] ^= 1;
        let checks = check_warp_outputs(&out, tpb, blocks, seed);
        assert_eq!(checks[2].differ, 1);
        assert_eq!(checks[2].first.map(|f| f.0), Some(5));
    }

    #[test]
    fn model_warp_ops_are_what_the_kernel_promises() {
        let out = warp_reference(32, 1, 0);
        let slot = |lane: usize, j: usize| out[lane * WARP_OUTPUTS + j];
        assert_eq!(slot(7, 0), 7);
        // seed 0: lanes whose id is a multiple of 3.
        assert_eq!(slot(0, 1), 0x4924_9249);
        assert_eq!(slot(0, 2), (5 * 7) as u32);
        assert_eq!(
            slot(20, 4),
            20 * 7,
            "lanes outside the half mask keep their value"
        );
        assert_eq!(slot(0, 5), 0b011);
        assert_eq!(slot(0, 6), 16);
    }

    #[test]
    fn libm_checks_treat_nans_alike_and_count_differences() {
        let xs = libm_inputs(64);
        assert!(xs[7].is_nan() && xs.len() == 64);
        let mut gpu: Vec<f64> = xs.iter().flat_map(|&x| libm_row(x)).collect();
        assert!(check_libm_f64(&xs, &gpu).iter().all(SlotCheck::passed));
        gpu[20 * LIBM_OUTPUTS + 1] = f64::from_bits(gpu[20 * LIBM_OUTPUTS + 1].to_bits() ^ 1);
        let c = check_libm_f64(&xs, &gpu);
        assert_eq!((c[1].differ, c[1].first.map(|f| f.0)), (1, Some(20)));
        let xf: Vec<f32> = xs.iter().map(|&x| x as f32).collect();
        let mut gf: Vec<f32> = xf.iter().flat_map(|&x| mcml_math_row(x)).collect();
        assert!(check_mcml_math(&xf, &gf).iter().all(SlotCheck::passed));
        gf[3 * LIBM_OUTPUTS] = f32::from_bits(gf[3 * LIBM_OUTPUTS].to_bits() ^ 1);
        let c = check_mcml_math(&xf, &gf);
        assert_eq!((c[0].differ, c[0].name), (1, "-ln(draw)"));
    }

    /// The CPU's own fast-math row (exact f32, since `FastF32` is f32 off the GPU) passes, and
    /// values pushed past each bound are counted.
    #[test]
    fn fast_math_check_holds_the_exact_row_within_bounds_and_catches_excess() {
        let xf: Vec<f32> = libm_inputs(4096).iter().map(|&x| x as f32).collect();
        let mut gf: Vec<f32> = xf.iter().flat_map(|&x| fast_math_row(x)).collect();
        let c = check_fast_math(&xf, &gf);
        assert!(c.iter().all(ToleranceCheck::passed), "{c:?}");
        assert!(c.iter().all(|c| c.max_abs == 0.0 && c.compared > 4000));
        // Off by 1e-5: beyond every absolute bound of the log, cosine and sine.
        for op in 0..3 {
            gf[100 * LIBM_OUTPUTS + op] += 1e-5;
        }
        // Three ulp off in the quotient, 2^-21 relative off in the square root.
        let q = &mut gf[200 * LIBM_OUTPUTS + 4];
        *q = f32::from_bits(q.to_bits() + 3);
        let r = &mut gf[300 * LIBM_OUTPUTS + 3];
        *r *= 1.0 + 2f32.powi(-20);
        let c = check_fast_math(&xf, &gf);
        let outside: Vec<usize> = c.iter().map(|c| c.outside).collect();
        assert_eq!(outside, [1, 1, 1, 1, 1], "{c:?}");
        assert_eq!(c[0].first.map(|f| f.0), Some(100));
        assert!(c[4].worst_of_bound > 1.4);
    }
}
