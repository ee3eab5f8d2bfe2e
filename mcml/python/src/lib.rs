//! `reconverge_mcml`, the Python package of reconverge's MCML (PyO3, one abi3 wheel built with
//! maturin): MCML runs from a layer list or an `.mci` file on the CPU, or on a CUDA GPU when
//! built with feature `cuda`, with MCML's outputs as NumPy arrays; `.mco` files read back into
//! the same result object; `.mci` files read and written; Gaussian and flat beams by CONV's
//! convolution ([`reconverge_mcml::finite_beam::convolve`]) or sampled in the run
//! ([`reconverge_mcml::RunInput::beam`]).
//!
//! Nothing here is physics or a file format of its own: runs go through
//! [`reconverge_mcml::batch::plan`] (every check, the random streams of an `.mci` file's runs)
//! and [`reconverge_mcml::run_streams`] or [`reconverge_mcml::run_on_backend_streams`]; layer
//! lists are held to the `.mci` parser's rules by printing them as `.mci` text and reading it
//! back; outputs are [`reconverge_mcml::mco_file::McoFile`]'s, from a run or from a file.
//!
//! ```python
//! import reconverge_mcml as mcml
//!
//! # MCML manual table 6.1: van de Hulst's slab, published Rd 0.09739, Tt 0.66096.
//! r = mcml.run([(1.0, 10.0, 90.0, 0.75, 0.02)], photons=20_000,
//!              grid=dict(dz=0.001, dr=0.01, nz=20, nr=50, na=10))
//! print(r.Rd, r.Tt, r.Rd_r.shape, r.fluence.shape)   # ~0.097 ~0.661 (50,) (50, 20)
//! ```
//!
//! The example runs in the pytest suite (`tests/test_readme.py` runs the README's copy); Rust
//! test binaries of this crate would have to link libpython, so its tests are all in Python.
//!
//! Errors are Python exceptions, never a crash: [`McmlError`] (a `ValueError`) for input MCML
//! refuses, with what and where; `ValueError`/`TypeError` for arguments of the wrong kind;
//! `FileNotFoundError`, `PermissionError` or `OSError` for files; `RuntimeError` for a backend
//! that is missing or fails.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray1, PyArray2};
use pyo3::exceptions::{
    PyFileNotFoundError, PyIsADirectoryError, PyOSError, PyPermissionError, PyRuntimeError,
    PyValueError,
};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use reconverge_backend::Launch;
use reconverge_cpu::CpuBackend;
use reconverge_mcml::batch::{PlanError, PlanOptions, PlannedRun, plan};
use reconverge_mcml::finite_beam::{
    Beam, BeamResponse, ConvolveOptions, ImpulseResponse, Interpolation, beam_label,
    convolve as convolve_impulse, fluence, mua_per_depth_bin,
};
use reconverge_mcml::mci::{parse_mci, read_mci as read_mci_file};
use reconverge_mcml::mco::write_mco;
use reconverge_mcml::mco_file::{McoFile, McoReadErrorKind, read_mco as read_mco_file};
use reconverge_mcml::{
    BackendRunError, McInput, OutputFormat, RunInput, RunOptions, RunResult,
    run_on_backend_streams, run_streams,
};
use reconverge_transforms::{Assignment, Decision, Strategy};
use reconverge_workloads::mcml::{GridSpec, LayerSpec, McmlFloat};

pyo3::create_exception!(
    reconverge_mcml,
    McmlError,
    PyValueError,
    "Input that MCML refuses (a value out of range, a grid too large, a malformed .mci or \
     .mco file): the message says which value and where."
);

/// The grid of a layer list run without `grid=`: 1 cm deep and wide in 100 bins of 0.01 cm,
/// 30 exit angles (MCML has no default; these resolve Rd(r) and A(z) of common tissue).
const DEFAULT_GRID: GridSpec = GridSpec {
    dz: 0.01,
    dr: 0.01,
    nz: 100,
    nr: 100,
    na: 30,
};

/// Photons of a layer list run without `photons=`.
const DEFAULT_PHOTONS: u64 = 100_000;

/// The CPU backend's launch for warp strategies: the `mcml` command line's default (64 blocks
/// of 128 emulated threads).
const CPU_THREADS_PER_BLOCK: u32 = 128;
const CPU_BLOCKS: u32 = 64;

/// The strategies `run(strategy=...)` knows, by the `mcml` command line's names.
const STRATEGY_NAMES: [&str; 12] = [
    "scalar",
    "baseline",
    "dynamic",
    "grid-dynamic",
    "majority-vote",
    "round-robin",
    "round-robin-idle-removal",
    "branch-distribution",
    "branch-distribution-dynamic",
    "cost-balanced",
    "cost-balanced-dynamic",
    "branch-distribution-cost-balanced",
];

/// The warp strategy called `name` (`None` for `scalar`, the plain per-photon loop), with the
/// command line's default parameters (majority vote: 16 lanes; round robin: 1:1).
fn strategy_of(name: &str) -> PyResult<Option<Strategy>> {
    let name = name.trim().to_ascii_lowercase().replace('_', "-");
    Ok(Some(match name.as_str() {
        "scalar" => return Ok(None),
        "baseline" => Strategy::BASELINE,
        "dynamic" => Strategy::DYNAMIC_WORK_ASSIGNMENT,
        "grid-dynamic" => Strategy::GRID_WIDE_DYNAMIC_WORK,
        "majority-vote" => Strategy::iteration_delaying(Decision::majority_vote(16, true)),
        "round-robin" => Strategy::iteration_delaying(Decision::round_robin(1, 1, false)),
        "round-robin-idle-removal" => {
            Strategy::iteration_delaying(Decision::round_robin(1, 1, true))
        }
        "branch-distribution" => Strategy::BRANCH_DISTRIBUTION,
        "branch-distribution-dynamic" => Strategy::BRANCH_DISTRIBUTION.over(Assignment::Dynamic),
        "cost-balanced" => Strategy::iteration_delaying(Decision::CostBalanced),
        "cost-balanced-dynamic" => {
            Strategy::iteration_delaying(Decision::CostBalanced).over(Assignment::Dynamic)
        }
        "branch-distribution-cost-balanced" => {
            Strategy::branch_distribution_with_delaying(Decision::CostBalanced)
                .over(Assignment::Dynamic)
        }
        _ => {
            return Err(PyValueError::new_err(format!(
                "strategy {name:?} is not one of {}",
                STRATEGY_NAMES.join(", ")
            )));
        }
    }))
}

/// The Python exception for an I/O failure on `path`: `FileNotFoundError`, `PermissionError`,
/// `IsADirectoryError`, else `OSError`.
fn io_error(path: &Path, kind: std::io::ErrorKind, message: &str) -> PyErr {
    use std::io::ErrorKind;
    let text = format!("{}: {message}", path.display());
    match kind {
        ErrorKind::NotFound => PyFileNotFoundError::new_err(text),
        ErrorKind::PermissionDenied => PyPermissionError::new_err(text),
        ErrorKind::IsADirectory => PyIsADirectoryError::new_err(text),
        _ => PyOSError::new_err(text),
    }
}

/// A float argument `what` that must be finite.
fn finite(what: &str, v: f64) -> PyResult<f64> {
    if v.is_finite() {
        Ok(v)
    } else {
        Err(PyValueError::new_err(format!(
            "{what} = {v}: must be a finite number"
        )))
    }
}

/// One layer of `layers=`: a dict with keys n, mua, mus, g, d, or a sequence of those five
/// numbers in that order.
fn layer_of(i: usize, item: &Bound<'_, PyAny>) -> PyResult<LayerSpec> {
    const KEYS: [&str; 5] = ["n", "mua", "mus", "g", "d"];
    let shape_error = || {
        PyValueError::new_err(format!(
            "layers[{i}]: expected a dict with keys n, mua, mus, g, d or a sequence of five \
             numbers (n, mua /cm, mus /cm, g, d cm), found {}",
            item.repr().map_or_else(|_| "?".into(), |r| r.to_string())
        ))
    };
    let values: [f64; 5] = if item.is_instance_of::<PyDict>() {
        let map: HashMap<String, f64> = item.extract().map_err(|_| shape_error())?;
        if let Some(k) = map.keys().find(|k| !KEYS.contains(&k.as_str())) {
            return Err(PyValueError::new_err(format!(
                "layers[{i}]: unknown key {k:?} (the keys are n, mua, mus, g, d)"
            )));
        }
        let mut v = [0.0; 5];
        for (slot, key) in v.iter_mut().zip(KEYS) {
            *slot = *map.get(key).ok_or_else(|| {
                PyValueError::new_err(format!("layers[{i}]: missing key {key:?}"))
            })?;
        }
        v
    } else {
        let v: Vec<f64> = item.extract().map_err(|_| shape_error())?;
        v.try_into().map_err(|_| shape_error())?
    };
    for (v, key) in values.iter().zip(KEYS) {
        finite(&format!("layers[{i}][{key:?}]"), *v)?;
    }
    let [n, mua, mus, g, d] = values;
    Ok(LayerSpec { n, mua, mus, g, d })
}

/// `grid=`: a dict with any of dz, dr (cm) and nz, nr, na (bins); missing keys keep
/// [`DEFAULT_GRID`]'s value.
fn grid_of(grid: Option<&Bound<'_, PyDict>>) -> PyResult<GridSpec> {
    let mut g = DEFAULT_GRID;
    let Some(dict) = grid else {
        return Ok(g);
    };
    for (key, value) in dict.iter() {
        let key: String = key.extract()?;
        let count = |v: &Bound<'_, PyAny>| -> PyResult<u32> {
            let n: i64 = v.extract().map_err(|_| {
                PyValueError::new_err(format!("grid[{key:?}] must be a whole number of bins"))
            })?;
            u32::try_from(n).map_err(|_| {
                McmlError::new_err(format!("{key} = {n} is invalid: must be > 0 and <= 32767"))
            })
        };
        let length = |v: &Bound<'_, PyAny>| -> PyResult<f64> {
            let x: f64 = v.extract().map_err(|_| {
                PyValueError::new_err(format!("grid[{key:?}] must be a number (cm)"))
            })?;
            finite(&format!("grid[{key:?}]"), x)
        };
        match key.as_str() {
            "dz" => g.dz = length(&value)?,
            "dr" => g.dr = length(&value)?,
            "nz" => g.nz = count(&value)?,
            "nr" => g.nr = count(&value)?,
            "na" => g.na = count(&value)?,
            _ => {
                return Err(PyValueError::new_err(format!(
                    "grid: unknown key {key:?} (the keys are dz, dr, nz, nr, na)"
                )));
            }
        }
    }
    Ok(g)
}

/// The photon count argument: a whole number (`0` is refused later, by MCML's own check).
fn photons_of(photons: &Bound<'_, PyAny>) -> PyResult<u64> {
    // Python's convention: a value of the wrong type (a string, a float) is a TypeError; an
    // integer out of range is a ValueError (MCML's McmlError).
    if !photons.is_instance_of::<pyo3::types::PyInt>()
        || photons.is_instance_of::<pyo3::types::PyBool>()
    {
        return Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "photons must be an int (a whole number from 1 to 2^64 - 1), not {}",
            photons
                .get_type()
                .name()
                .map_or_else(|_| "?".into(), |n| n.to_string())
        )));
    }
    photons.extract::<u64>().map_err(|_| {
        McmlError::new_err(format!(
            "photons = {}: must be a whole number from 1 to 2^64 - 1",
            photons
                .repr()
                .map_or_else(|_| "?".into(), |r| r.to_string())
        ))
    })
}

/// A run's input from Python values, held to the `.mci` parser's rules (ranges of n, mua,
/// mus, g, d, grid counts) by printing it as an `.mci` run and reading that back.
fn checked_input(
    layers: Vec<LayerSpec>,
    grid: GridSpec,
    n_above: f64,
    n_below: f64,
    photons: u64,
    output: &str,
) -> PyResult<RunInput> {
    let input = RunInput {
        output_file: output.to_string(),
        format: OutputFormat::Ascii,
        photons,
        grid,
        n_above: finite("n_above", n_above)?,
        layers,
        n_below: finite("n_below", n_below)?,
        line: 0,
        lines: Default::default(),
        beam: Default::default(),
    };
    if input.layers.is_empty() {
        return Err(McmlError::new_err("layers: at least one layer is needed"));
    }
    if output.is_empty() || output.contains(['#', ' ', '\t', '\n', '\r']) {
        return Err(PyValueError::new_err(format!(
            "output {output:?}: an .mco name must be non-empty, without blanks or '#'"
        )));
    }
    let text = McInput {
        runs: vec![input.clone()],
    }
    .to_mci();
    parse_mci(&text, "layers")
        .map(|_| input)
        .map_err(|e| McmlError::new_err(e.kind.to_string()))
}

/// Runs `planned` on the CPU in float type `F` under `strategy` (`None`: the plain loop on
/// rayon; else the warps emulated by the CPU backend). Returns the result and the warps' SIMD
/// efficiency, where the backend counts it.
fn simulate_cpu<F: McmlFloat>(
    planned: &PlannedRun,
    strategy: Option<Strategy>,
) -> Result<(RunResult, Option<f64>), PyErrState> {
    let photons = planned.input.photons;
    let Some(strategy) = strategy else {
        return run_streams::<F>(&planned.input, photons, planned.streams, None)
            .map(|r| (r, None))
            .map_err(|e| PyErrState::Input(e.to_string()));
    };
    let launch = Launch::new(CPU_THREADS_PER_BLOCK, CPU_BLOCKS)
        .map_err(|e| PyErrState::Backend(e.to_string()))?;
    run_on_backend_streams::<F, _>(
        &CpuBackend::new(),
        &planned.input,
        photons,
        planned.streams,
        strategy,
        launch,
        &RunOptions::default(),
    )
    .map(|out| (out.result, out.counters.map(|c| c.simd_efficiency())))
    .map_err(PyErrState::from)
}

/// An error made without the GIL (in the photon loop), turned into a Python exception after.
enum PyErrState {
    /// The input was refused: [`McmlError`].
    Input(String),
    /// The backend is missing or failed: `RuntimeError`.
    Backend(String),
}

impl From<BackendRunError> for PyErrState {
    fn from(e: BackendRunError) -> Self {
        match e {
            BackendRunError::Input(e) => Self::Input(e.to_string()),
            other => Self::Backend(other.to_string()),
        }
    }
}

impl From<PyErrState> for PyErr {
    fn from(e: PyErrState) -> Self {
        match e {
            PyErrState::Input(m) => McmlError::new_err(m),
            PyErrState::Backend(m) => PyRuntimeError::new_err(m),
        }
    }
}

/// Where the photons run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Backend {
    Cpu,
    Cuda,
}

/// Runs `planned` on GPU 0 in f32 under `strategy` (one resident wave of blocks of
/// [`reconverge_mcml::gpu_launch`]'s block size, as the `mcml` command line launches).
#[cfg(feature = "cuda")]
fn simulate_cuda(
    planned: &PlannedRun,
    strategy: Strategy,
) -> Result<(RunResult, Option<f64>), PyErrState> {
    use reconverge_gpu::DeviceKernel;
    use reconverge_workloads::mcml::McmlKernel;
    // No warm-up launch, as in the `mcml` program: the run's first batch warms the GPU.
    let gpu = reconverge_paper_kernels::mcml_backend(0)
        .map_err(|e| PyErrState::Backend(format!("no CUDA GPU could be used: {e}")))?;
    let entry = <McmlKernel<f32>>::entry_point(&strategy, 0).ok_or_else(|| {
        PyErrState::Input(format!("no CUDA entry point for MCML under {strategy}"))
    })?;
    let gpu_context = gpu.gpu();
    let sms = u32::try_from(gpu_context.device().multiprocessors).unwrap_or(1);
    let blocks_per_sm = |t, shared| {
        gpu_context
            .max_active_blocks_with_shared(entry, t, shared)
            .ok()
    };
    let limit = reconverge_gpu::DYNAMIC_SHARED_LIMIT;
    let launch = reconverge_mcml::gpu_launch_for::<f32>(&strategy, sms, limit, blocks_per_sm)
        .map_err(|e| PyErrState::Backend(e.to_string()))?;
    run_on_backend_streams::<f32, _>(
        &gpu,
        &planned.input,
        planned.input.photons,
        planned.streams,
        strategy,
        launch,
        &RunOptions::default(),
    )
    .map(|out| (out.result, None))
    .map_err(PyErrState::from)
}

#[cfg(not(feature = "cuda"))]
fn simulate_cuda(
    _planned: &PlannedRun,
    _strategy: Strategy,
) -> Result<(RunResult, Option<f64>), PyErrState> {
    Err(PyErrState::Backend(
        "backend=\"cuda\": this reconverge_mcml was built without CUDA support (build the \
         wheel with `maturin build --features cuda` on a machine with the nightly toolchain); \
         use backend=\"cpu\""
            .into(),
    ))
}

/// MCML's outputs of one run, from [`run`] or [`read_mco`]: the RAT numbers as floats, every
/// array as a new NumPy `float64` array on each access (r outer for two-dimensional ones),
/// and the bin centres they are tallied at.
#[pyclass(name = "McmlResult", module = "reconverge_mcml", frozen)]
struct McmlResult {
    mco: McoFile,
    /// The raw run, for [`McmlResult::write_mco`]; `None` when read from an `.mco`.
    run: Option<RunResult>,
    /// Seed, backend, strategy, precision, SIMD efficiency: how it ran (None when read).
    seed: Option<u64>,
    backend: Option<&'static str>,
    strategy: Option<String>,
    precision: Option<&'static str>,
    simd_efficiency: Option<f64>,
    /// The beam the photons entered by (an `.mco` records none: the pencil beam).
    beam: Beam,
}

fn array1<'py>(py: Python<'py>, v: &[f64]) -> Bound<'py, PyArray1<f64>> {
    PyArray1::from_slice(py, v)
}

fn array2<'py>(
    py: Python<'py>,
    v: &[f64],
    rows: u32,
    cols: u32,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    Array2::from_shape_vec((rows as usize, cols as usize), v.to_vec())
        .map(|a| a.into_pyarray(py))
        .map_err(|e| PyRuntimeError::new_err(format!("array of {} values: {e}", v.len())))
}

#[pymethods]
impl McmlResult {
    /// Specular reflectance.
    #[getter(Rsp)]
    fn rsp(&self) -> f64 {
        self.mco.rat.rsp
    }
    /// Total diffuse reflectance (specular excluded).
    #[getter(Rd)]
    fn rd(&self) -> f64 {
        self.mco.rat.rd
    }
    /// Absorbed fraction.
    #[getter(A)]
    fn a(&self) -> f64 {
        self.mco.rat.a
    }
    /// Total transmittance (unscattered light included).
    #[getter(Tt)]
    fn tt(&self) -> f64 {
        self.mco.rat.tt
    }
    /// Absorbed fraction per layer, shape (layers,).
    #[getter(A_l)]
    fn a_l<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        array1(py, &self.mco.a_l)
    }
    /// Absorption per unit depth (1/cm), shape (nz,).
    #[getter(A_z)]
    fn a_z<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        array1(py, &self.mco.a_z)
    }
    /// Diffuse reflectance per unit area (1/cm²), shape (nr,).
    #[getter(Rd_r)]
    fn rd_r<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        array1(py, &self.mco.rd_r)
    }
    /// Diffuse reflectance per unit solid angle (1/sr), shape (na,).
    #[getter(Rd_a)]
    fn rd_a<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        array1(py, &self.mco.rd_a)
    }
    /// Transmittance per unit area (1/cm²), shape (nr,).
    #[getter(Tt_r)]
    fn tt_r<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        array1(py, &self.mco.tt_r)
    }
    /// Transmittance per unit solid angle (1/sr), shape (na,).
    #[getter(Tt_a)]
    fn tt_a<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        array1(py, &self.mco.tt_a)
    }
    /// Absorption density (1/cm³), shape (nr, nz).
    #[getter(A_rz)]
    fn a_rz<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let g = self.mco.input.grid;
        array2(py, &self.mco.a_rz, g.nr, g.nz)
    }
    /// Diffuse reflectance (1/(cm² sr)), shape (nr, na).
    #[getter(Rd_ra)]
    fn rd_ra<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let g = self.mco.input.grid;
        array2(py, &self.mco.rd_ra, g.nr, g.na)
    }
    /// Transmittance (1/(cm² sr)), shape (nr, na).
    #[getter(Tt_ra)]
    fn tt_ra<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let g = self.mco.input.grid;
        array2(py, &self.mco.tt_ra, g.nr, g.na)
    }
    /// Fluence (1/cm²) = A_rz / µa of the layer at each z bin's centre, shape (nr, nz); 0 in
    /// a layer without absorption, as CONV writes it.
    #[getter]
    fn fluence<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let input = &self.mco.input;
        let mua_z = mua_per_depth_bin(&input.grid, &input.layers);
        array2(
            py,
            &fluence(&self.mco.a_rz, &mua_z),
            input.grid.nr,
            input.grid.nz,
        )
    }
    /// The beam: "pencil" (MCML's), "gaussian:R" or "flat:R" (R in cm; an .mco names a
    /// sampled beam in a `# Beam:` comment).
    #[getter]
    fn beam(&self) -> String {
        beam_label(self.beam)
    }
    /// Radial bin centres (ir + ½) dr (cm), shape (nr,).
    #[getter]
    fn r<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        array1(py, &self.mco.r_centres())
    }
    /// Depth bin centres (iz + ½) dz (cm), shape (nz,).
    #[getter]
    fn z<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        array1(py, &self.mco.z_centres())
    }
    /// Exit-angle bin centres (ia + ½) π / (2 na) (radians), shape (na,).
    #[getter]
    fn alpha<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        array1(py, &self.mco.angle_centres())
    }
    /// The grid: dict with dz, dr (cm), nz, nr, na.
    #[getter]
    fn grid<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        grid_dict(py, &self.mco.input.grid)
    }
    /// The layers, top to bottom: dicts with n, mua (1/cm), mus (1/cm), g, d (cm).
    #[getter]
    fn layers<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        layers_list(py, &self.mco.input.layers)
    }
    /// Refractive index of the medium above.
    #[getter]
    fn n_above(&self) -> f64 {
        self.mco.input.n_above
    }
    /// Refractive index of the medium below.
    #[getter]
    fn n_below(&self) -> f64 {
        self.mco.input.n_below
    }
    /// Photons run.
    #[getter]
    fn photons(&self) -> u64 {
        self.mco.input.photons
    }
    /// Seed of the photons' random streams (None when read from an .mco, which has none).
    #[getter]
    fn seed(&self) -> Option<u64> {
        self.seed
    }
    /// "cpu" or "cuda" (None when read from an .mco).
    #[getter]
    fn backend(&self) -> Option<&'static str> {
        self.backend
    }
    /// The strategy's name (None when read from an .mco).
    #[getter]
    fn strategy(&self) -> Option<String> {
        self.strategy.clone()
    }
    /// "f32" or "f64" (None when read from an .mco).
    #[getter]
    fn precision(&self) -> Option<&'static str> {
        self.precision
    }
    /// Seconds the run took (an .mco's "User time").
    #[getter]
    fn elapsed(&self) -> Option<f64> {
        self.mco.user_time
    }
    /// The warps' SIMD efficiency (0 to 1) on the CPU backend's warp strategies, else None.
    #[getter]
    fn simd_efficiency(&self) -> Option<f64> {
        self.simd_efficiency
    }

    /// Writes this run's `.mco` file, in MCML's layout (a result of `run` only: a result read
    /// from an `.mco` is that file already).
    fn write_mco(&self, path: PathBuf) -> PyResult<()> {
        let Some(run) = &self.run else {
            return Err(McmlError::new_err(
                "this result was read from an .mco file and holds no tallies to write; copy \
                 the file instead",
            ));
        };
        std::fs::write(&path, write_mco(run, run.elapsed.as_secs_f64()))
            .map_err(|e| io_error(&path, e.kind(), &e.to_string()))
    }

    fn __repr__(&self) -> String {
        let r = &self.mco.rat;
        format!(
            "McmlResult(photons={}, Rsp={:.6}, Rd={:.6}, A={:.6}, Tt={:.6}, grid=(nz={}, nr={}, na={}))",
            self.mco.input.photons,
            r.rsp,
            r.rd,
            r.a,
            r.tt,
            self.mco.input.grid.nz,
            self.mco.input.grid.nr,
            self.mco.input.grid.na
        )
    }
}

fn grid_dict<'py>(py: Python<'py>, g: &GridSpec) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("dz", g.dz)?;
    d.set_item("dr", g.dr)?;
    d.set_item("nz", g.nz)?;
    d.set_item("nr", g.nr)?;
    d.set_item("na", g.na)?;
    Ok(d)
}

fn layers_list<'py>(py: Python<'py>, layers: &[LayerSpec]) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for l in layers {
        let d = PyDict::new(py);
        d.set_item("n", l.n)?;
        d.set_item("mua", l.mua)?;
        d.set_item("mus", l.mus)?;
        d.set_item("g", l.g)?;
        d.set_item("d", l.d)?;
        list.append(d)?;
    }
    Ok(list)
}

/// The runs of an `.mci` file, or a file error as the matching Python exception.
fn mci_runs(path: &Path) -> PyResult<Vec<RunInput>> {
    // The parser reports I/O failures as text; the file is opened here first so that a
    // missing file raises FileNotFoundError, not McmlError.
    if let Err(e) = std::fs::File::open(path) {
        return Err(io_error(path, e.kind(), &e.to_string()));
    }
    if path.is_dir() {
        return Err(io_error(
            path,
            std::io::ErrorKind::IsADirectory,
            "is a directory",
        ));
    }
    read_mci_file(path)
        .map(|m| m.runs)
        .map_err(|e| McmlError::new_err(e.to_string()))
}

/// Runs MCML and returns its outputs as an `McmlResult`.
///
/// Give either `layers` (a list of layers, top to bottom: dicts with keys n, mua, mus, g, d
/// or sequences (n, mua, mus, g, d); mua and mus in 1/cm, d in cm) with `n_above`, `n_below`
/// and `grid` (dict of dz, dr in cm and nz, nr, na; missing keys: dz = dr = 0.01, nz = nr =
/// 100, na = 30), or `mci`, the path of an MCML `.mci` file, and `mci_run`, the 0-based
/// index of its run to simulate (whose photons continue the streams of the runs before it,
/// as the `mcml` command line runs them).
///
/// `photons` overrides the file's count (default 100,000 for a layer list). `backend` is
/// "cpu" or "cuda" (GPU 0, f32 only; a wheel built with feature `cuda`). `strategy` is a
/// name of the `mcml` command line's strategies ("scalar", the plain per-photon loop, by
/// default on the CPU; "grid-dynamic", each thread's photon loop over one grid-wide counter,
/// by default on the GPU: the fastest on each); every strategy gives the same numbers, bit
/// for bit, in one precision. `precision` is "f32" (as on the GPU) or "f64". `output`, if
/// given, is where the run's `.mco` is written. The photons' random streams are keyed by
/// `seed`.
#[pyfunction]
#[pyo3(signature = (
    layers=None, *, mci=None, mci_run=0, photons=None, grid=None, n_above=1.0, n_below=1.0,
    seed=1, backend="cpu", strategy=None, precision="f32", output=None, beam=None,
    beam_radius=None
))]
#[allow(clippy::too_many_arguments)]
fn run(
    py: Python<'_>,
    layers: Option<&Bound<'_, PyAny>>,
    mci: Option<PathBuf>,
    mci_run: usize,
    photons: Option<&Bound<'_, PyAny>>,
    grid: Option<&Bound<'_, PyDict>>,
    n_above: f64,
    n_below: f64,
    seed: u64,
    backend: &str,
    strategy: Option<&str>,
    precision: &str,
    output: Option<PathBuf>,
    beam: Option<&str>,
    beam_radius: Option<f64>,
) -> PyResult<McmlResult> {
    let beam = beam_of(beam, beam_radius, "beam_radius")?;
    let backend = match backend.trim().to_ascii_lowercase().as_str() {
        "cpu" => Backend::Cpu,
        "cuda" | "gpu" => Backend::Cuda,
        other => {
            return Err(PyValueError::new_err(format!(
                "backend {other:?} is not \"cpu\" or \"cuda\""
            )));
        }
    };
    let f64_precision = match precision.trim().to_ascii_lowercase().as_str() {
        "f32" | "float32" | "single" => false,
        "f64" | "float64" | "double" => true,
        other => {
            return Err(PyValueError::new_err(format!(
                "precision {other:?} is not \"f32\" or \"f64\""
            )));
        }
    };
    if backend == Backend::Cuda && f64_precision {
        return Err(PyValueError::new_err(
            "backend=\"cuda\" runs in f32 only (precision=\"f32\")",
        ));
    }
    // The fastest on each (`mcml`'s defaults): the plain loop on the CPU, each thread's photon
    // loop over one grid-wide counter on the GPU.
    let strategy_name = strategy.unwrap_or(match backend {
        Backend::Cpu => "scalar",
        Backend::Cuda => "grid-dynamic",
    });
    let strategy = strategy_of(strategy_name)?;
    if backend == Backend::Cuda && strategy.is_none() {
        return Err(PyValueError::new_err(
            "strategy \"scalar\" runs on the CPU only; pick a warp strategy for backend=\"cuda\"",
        ));
    }
    let photons = photons.map(photons_of).transpose()?;

    let (runs, index, source) = match (layers, &mci) {
        (Some(_), Some(_)) => {
            return Err(PyValueError::new_err("give layers or mci, not both"));
        }
        (None, None) => {
            return Err(PyValueError::new_err(
                "give layers (a list of (n, mua, mus, g, d)) or mci (an .mci file's path)",
            ));
        }
        (Some(layers), None) => {
            if layers.is_instance_of::<PyString>() {
                return Err(PyValueError::new_err(
                    "layers must be a list of layers, not a string (an .mci path goes in mci=)",
                ));
            }
            let layers = layers
                .try_iter()
                .map_err(|_| PyValueError::new_err("layers must be a list of layers"))?
                .enumerate()
                .map(|(i, item)| layer_of(i, &item?))
                .collect::<PyResult<Vec<_>>>()?;
            let name = output
                .as_ref()
                .and_then(|p| p.file_name())
                .map_or_else(|| "run.mco".to_string(), |n| n.to_string_lossy().into());
            let input = checked_input(
                layers,
                grid_of(grid)?,
                n_above,
                n_below,
                photons.unwrap_or(DEFAULT_PHOTONS),
                &name.replace([' ', '\t', '#'], "_"),
            )?;
            (vec![input], 0, "layers".to_string())
        }
        (None, Some(path)) => {
            if grid.is_some() {
                return Err(PyValueError::new_err(
                    "grid= is for a layer list; an .mci file has its own grid",
                ));
            }
            let runs = mci_runs(path)?;
            if mci_run >= runs.len() {
                return Err(PyValueError::new_err(format!(
                    "mci_run = {mci_run}: {} has {} run(s), numbered from 0",
                    path.display(),
                    runs.len()
                )));
            }
            (runs, mci_run, path.display().to_string())
        }
    };
    let options = PlanOptions {
        source,
        photons,
        seed,
        write_outputs: false,
        output: None,
    };
    let planned = if f64_precision {
        plan::<f64>(&runs, &options)
    } else {
        plan::<f32>(&runs, &options)
    }
    .map_err(|e| plan_error(e, layers.is_some()))?;
    let mut planned = planned
        .into_iter()
        .nth(index)
        .ok_or_else(|| PyRuntimeError::new_err("internal: the planned run is missing"))?;
    for warning in planned.input.warnings() {
        let message = std::ffi::CString::new(format!("{}: {warning}", planned.input.output_file))
            .unwrap_or_default();
        let category = py.get_type::<pyo3::exceptions::PyUserWarning>();
        PyErr::warn(py, category.as_any(), &message, 1)?;
    }
    // Checked with the run's parameters (finite, > 0, within the grid's nr x dr).
    planned.input.beam = beam;
    if let Some(path) = &output {
        reconverge_mcml::batch::check_output_path(path)
            .map_err(|e| McmlError::new_err(format!("output: {e}")))?;
    }
    let (result, simd_efficiency) = py.detach(|| match (backend, strategy) {
        (Backend::Cuda, Some(s)) => simulate_cuda(&planned, s),
        (_, s) if f64_precision => simulate_cpu::<f64>(&planned, s),
        (_, s) => simulate_cpu::<f32>(&planned, s),
    })?;
    if let Some(path) = &output {
        std::fs::write(path, write_mco(&result, result.elapsed.as_secs_f64()))
            .map_err(|e| io_error(path, e.kind(), &e.to_string()))?;
    }
    Ok(McmlResult {
        mco: McoFile::from_result(&result),
        run: Some(result),
        seed: Some(seed),
        backend: Some(match backend {
            Backend::Cpu => "cpu",
            Backend::Cuda => "cuda",
        }),
        strategy: Some(strategy_name.trim().to_ascii_lowercase().replace('_', "-")),
        precision: Some(if f64_precision { "f64" } else { "f32" }),
        simd_efficiency,
        beam,
    })
}

/// A refused plan as [`McmlError`]; for a layer list, without the `layers: run 1:` place a
/// file's run would have.
fn plan_error(e: PlanError, from_layers: bool) -> PyErr {
    match e {
        PlanError::Limit { source, .. } if from_layers => McmlError::new_err(source.to_string()),
        other => McmlError::new_err(other.to_string()),
    }
}

/// A beam from `beam` ("pencil", "gaussian", "flat", or the command line's "gaussian:R" /
/// "flat:R") and its radius (cm), named `radius_name` in errors.
fn beam_of(beam: Option<&str>, radius: Option<f64>, radius_name: &str) -> PyResult<Beam> {
    let Some(text) = beam else {
        return match radius {
            None => Ok(Beam::Pencil),
            Some(_) => Err(PyValueError::new_err(format!(
                "{radius_name} needs beam=\"gaussian\" or beam=\"flat\""
            ))),
        };
    };
    let (kind, from_text) = match text.split_once(':') {
        Some((kind, r)) => {
            let r: f64 = r.trim().parse().map_err(|_| {
                PyValueError::new_err(format!("beam {text:?}: the radius is not a number"))
            })?;
            (kind, Some(r))
        }
        None => (text, None),
    };
    let radius = match (from_text, radius) {
        (Some(_), Some(_)) => {
            return Err(PyValueError::new_err(format!(
                "beam {text:?} names its radius; drop {radius_name}"
            )));
        }
        (a, b) => a.or(b),
    };
    let radius_of = |kind: &str| {
        let r = radius.ok_or_else(|| {
            PyValueError::new_err(format!(
                "beam {kind:?} needs a radius ({radius_name}=, in cm; the 1/e² radius of a \
                 Gaussian)"
            ))
        })?;
        if r.is_finite() && r > 0.0 {
            Ok(r)
        } else {
            Err(McmlError::new_err(format!(
                "beam radius {r}: must be a finite number > 0 (cm)"
            )))
        }
    };
    match kind.trim().to_ascii_lowercase().as_str() {
        "pencil" if radius.is_none() => Ok(Beam::Pencil),
        "pencil" => Err(PyValueError::new_err("the pencil beam has no radius")),
        "gaussian" | "gauss" => Ok(Beam::Gaussian {
            radius: radius_of("gaussian")?,
        }),
        "flat" => Ok(Beam::Flat {
            radius: radius_of("flat")?,
        }),
        other => Err(PyValueError::new_err(format!(
            "beam {other:?} is not \"pencil\", \"gaussian\" or \"flat\""
        ))),
    }
}

/// Most radial points of a convolution's output grid: MCML's (and CONV's) `short` count.
const MAX_OUTPUT_BINS: u32 = i16::MAX as u32;

/// A finite beam's responses from [`convolve`]: point values at the bin centres `r` (the
/// output grid's) and `z`, for a beam of total energy `power` (J; or W and W/cm²).
#[pyclass(name = "BeamResponse", module = "reconverge_mcml", frozen)]
struct PyBeamResponse(BeamResponse);

#[pymethods]
impl PyBeamResponse {
    /// "gaussian:R" or "flat:R" (R in cm).
    #[getter]
    fn beam(&self) -> String {
        beam_label(self.0.beam)
    }
    /// The beam's radius (cm): the 1/e² radius of a Gaussian.
    #[getter]
    fn radius(&self) -> Option<f64> {
        self.0.beam.radius()
    }
    /// Total energy (J) or power (W) of the beam.
    #[getter]
    fn power(&self) -> f64 {
        self.0.power
    }
    /// Radial positions (cm), shape (nr,).
    #[getter]
    fn r<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        array1(py, &self.0.r)
    }
    /// Depths (cm), shape (nz,).
    #[getter]
    fn z<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        array1(py, &self.0.z)
    }
    /// Diffuse reflectance (J/cm²), shape (nr,).
    #[getter(Rd_r)]
    fn rd_r<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        array1(py, &self.0.rd_r)
    }
    /// Transmittance (J/cm²), shape (nr,).
    #[getter(Tt_r)]
    fn tt_r<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        array1(py, &self.0.tt_r)
    }
    /// Absorbed energy density (J/cm³), shape (nr, nz).
    #[getter(A_rz)]
    fn a_rz<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let (nr, nz) = (self.0.r.len(), self.0.z.len());
        array2(py, &self.0.a_rz, nr as u32, nz as u32)
    }
    /// Fluence A / µa (J/cm²), shape (nr, nz); 0 where µa = 0.
    #[getter]
    fn fluence<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let (nr, nz) = (self.0.r.len(), self.0.z.len());
        array2(py, &self.0.fluence_rz, nr as u32, nz as u32)
    }

    fn __repr__(&self) -> String {
        format!(
            "BeamResponse(beam={:?}, power={}, nr={}, nz={})",
            beam_label(self.0.beam),
            self.0.power,
            self.0.r.len(),
            self.0.z.len()
        )
    }
}

/// The responses of a pencil-beam result (from `run` or `read_mco`) to a Gaussian (1/e²
/// radius `radius`) or flat (radius `radius`) beam of total energy `power`, by convolution as
/// MCML's companion program CONV computes it. `dr` and `nr` set the output's radial grid (the
/// result's by default); `interpolation` is "conv" (CONV's linear interpolation between bin
/// centres: point values there) or "bins" (each bin's value over its annulus, keeping every
/// bin's weight; its values are each output bin's average over its annulus, as a sampled
/// beam's tallies are).
#[pyfunction]
#[pyo3(signature = (result, beam="gaussian", radius=None, *, power=1.0, dr=None, nr=None, interpolation="conv"))]
#[allow(clippy::too_many_arguments)]
fn convolve(
    py: Python<'_>,
    result: &McmlResult,
    beam: &str,
    radius: Option<f64>,
    power: f64,
    dr: Option<f64>,
    nr: Option<u32>,
    interpolation: &str,
) -> PyResult<PyBeamResponse> {
    let beam = beam_of(Some(beam), radius, "radius")?;
    if beam == Beam::Pencil {
        return Err(PyValueError::new_err(
            "the pencil beam is the result itself: choose beam=\"gaussian\" or \"flat\"",
        ));
    }
    if result.beam != Beam::Pencil {
        return Err(McmlError::new_err(format!(
            "this run already sampled the beam {}; convolve a pencil-beam run",
            beam_label(result.beam)
        )));
    }
    let interpolation = match interpolation.trim().to_ascii_lowercase().as_str() {
        "conv" => Interpolation::Conv,
        "bins" => Interpolation::Bins,
        other => {
            return Err(PyValueError::new_err(format!(
                "interpolation {other:?} is not \"conv\" or \"bins\""
            )));
        }
    };
    let g = result.mco.input.grid;
    if let Some(nr) = nr
        && !(1..=MAX_OUTPUT_BINS).contains(&nr)
    {
        return Err(McmlError::new_err(format!(
            "nr = {nr}: the output grid needs 1 to {MAX_OUTPUT_BINS} radial points"
        )));
    }
    let output_grid = match (dr, nr) {
        (None, None) => None,
        (dr, nr) => Some((dr.unwrap_or(g.dr), nr.unwrap_or(g.nr))),
    };
    let impulse = ImpulseResponse::new(
        g,
        &result.mco.input.layers,
        result.mco.rd_r.clone(),
        result.mco.tt_r.clone(),
        result.mco.a_rz.clone(),
    )
    .map_err(|e| McmlError::new_err(e.to_string()))?;
    let options = ConvolveOptions {
        power,
        output_grid,
        interpolation,
        ..ConvolveOptions::default()
    };
    py.detach(|| convolve_impulse(&impulse, beam, &options))
        .map(PyBeamResponse)
        .map_err(|e| McmlError::new_err(e.to_string()))
}

/// Reads an MCML `.mco` file into an `McmlResult` (the same attributes a run gives; seed,
/// backend and strategy are None).
#[pyfunction]
fn read_mco(py: Python<'_>, path: PathBuf) -> PyResult<McmlResult> {
    let mco = py
        .detach(|| read_mco_file(&path))
        .map_err(|e| match &e.kind {
            McoReadErrorKind::Io { kind, message } => io_error(&path, *kind, message),
            _ => McmlError::new_err(e.to_string()),
        })?;
    Ok(McmlResult {
        run: None,
        seed: None,
        backend: None,
        strategy: None,
        precision: None,
        simd_efficiency: None,
        beam: mco.input.beam,
        mco,
    })
}

/// The runs of an `.mci` file as dicts of `run()`'s keywords (layers, photons, grid,
/// n_above, n_below, output), so that `run(**read_mci(path)[0])` runs the first one (and
/// writes its `.mco`, as MCML does) and `write_mci(path, runs)` writes them back.
#[pyfunction]
fn read_mci<'py>(py: Python<'py>, path: PathBuf) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for r in mci_runs(&path)? {
        let d = PyDict::new(py);
        d.set_item("layers", layers_list(py, &r.layers)?)?;
        d.set_item("photons", r.photons)?;
        d.set_item("grid", grid_dict(py, &r.grid)?)?;
        d.set_item("n_above", r.n_above)?;
        d.set_item("n_below", r.n_below)?;
        d.set_item("output", r.output_file)?;
        list.append(d)?;
    }
    Ok(list)
}

/// Writes an MCML `.mci` file of `runs`: a dict or a list of dicts with the keys `read_mci`
/// gives (layers, photons, grid, n_above, n_below, output; output names must differ). Every
/// run is checked as the `.mci` parser checks a file before anything is written.
#[pyfunction]
fn write_mci(path: PathBuf, runs: &Bound<'_, PyAny>) -> PyResult<()> {
    let items: Vec<Bound<'_, PyAny>> = if runs.is_instance_of::<PyDict>() {
        vec![runs.clone()]
    } else {
        runs.try_iter()
            .map_err(|_| PyValueError::new_err("runs must be a dict or a list of dicts"))?
            .collect::<PyResult<_>>()?
    };
    if items.is_empty() {
        return Err(PyValueError::new_err("runs: at least one run is needed"));
    }
    let mut inputs = Vec::with_capacity(items.len());
    for (k, item) in items.iter().enumerate() {
        let d = item.cast::<PyDict>().map_err(|_| {
            PyValueError::new_err(format!("runs[{k}] must be a dict of run()'s keywords"))
        })?;
        let mut layers = None;
        let mut photons = DEFAULT_PHOTONS;
        let mut grid = None;
        let (mut n_above, mut n_below) = (1.0, 1.0);
        let mut output = format!("run{}.mco", k + 1);
        for (key, value) in d.iter() {
            let key: String = key.extract()?;
            let in_run = |e: PyErr| {
                PyValueError::new_err(format!("runs[{k}][{key:?}]: {}", e.value(item.py())))
            };
            match key.as_str() {
                "layers" => {
                    layers = Some(
                        value
                            .try_iter()
                            .map_err(in_run)?
                            .enumerate()
                            .map(|(i, l)| layer_of(i, &l?))
                            .collect::<PyResult<Vec<_>>>()?,
                    );
                }
                "photons" => photons = photons_of(&value)?,
                "grid" => {
                    grid = Some(grid_of(Some(value.cast::<PyDict>().map_err(|_| {
                        PyValueError::new_err(format!("runs[{k}][\"grid\"] must be a dict"))
                    })?))?)
                }
                "n_above" => n_above = value.extract().map_err(in_run)?,
                "n_below" => n_below = value.extract().map_err(in_run)?,
                "output" => output = value.extract().map_err(in_run)?,
                _ => {
                    return Err(PyValueError::new_err(format!(
                        "runs[{k}]: unknown key {key:?} (the keys are layers, photons, grid, \
                         n_above, n_below, output)"
                    )));
                }
            }
        }
        let layers = layers
            .ok_or_else(|| PyValueError::new_err(format!("runs[{k}]: missing key \"layers\"")))?;
        let input = checked_input(
            layers,
            grid.unwrap_or(DEFAULT_GRID),
            n_above,
            n_below,
            photons,
            &output,
        )
        .map_err(|e| McmlError::new_err(format!("runs[{k}]: {}", e.value(item.py()))))?;
        inputs.push(input);
    }
    let text = McInput { runs: inputs }.to_mci();
    // The whole file read back: two runs writing one .mco are refused as MCML refuses them.
    parse_mci(&text, &path.display().to_string())
        .map_err(|e| McmlError::new_err(e.kind.to_string()))?;
    std::fs::write(&path, text).map_err(|e| io_error(&path, e.kind(), &e.to_string()))
}

/// The Python module `reconverge_mcml`.
#[pymodule]
#[pyo3(name = "reconverge_mcml")]
fn reconverge_mcml_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(read_mco, m)?)?;
    m.add_function(wrap_pyfunction!(read_mci, m)?)?;
    m.add_function(wrap_pyfunction!(write_mci, m)?)?;
    m.add_function(wrap_pyfunction!(convolve, m)?)?;
    m.add_class::<McmlResult>()?;
    m.add_class::<PyBeamResponse>()?;
    m.add("McmlError", m.py().get_type::<McmlError>())?;
    m.add("STRATEGIES", STRATEGY_NAMES.to_vec())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("CUDA", cfg!(feature = "cuda"))?;
    Ok(())
}
