//! [`CudaBackend`]: reconverge's [`Backend`] on an NVIDIA GPU (feature `runtime`).

use std::sync::Mutex;
use std::time::{Duration, Instant};

use cudarc::driver::{
    CudaSlice, DevicePtr, DevicePtrMut, DeviceRepr, PushKernelArg, ValidAsZeroBits,
};
use reconverge_backend::{Backend, BackendError, Job, Launch, Run};
use reconverge_device::{EntryArgs, EntryParameter};
use reconverge_occupancy::{ComputeCapability, KernelResources, LaunchConfig, calculate_occupancy};
use reconverge_simt::ModelWarp;
use reconverge_transforms::{Kernel, PassPlan, Strategy, StrategyParameters, WarpTask};

use crate::DeviceKernel;
use crate::cuda::{GpuContext, driver};
use crate::error::{GpuError, LaunchShape};
use crate::tally_copies::{add_up_copies, tally_copies};

/// A value copied to or from the device byte for byte.
#[derive(Clone, Copy)]
#[repr(transparent)]
struct Raw<T>(T);

// SAFETY: `Raw` is only built around a `DeviceKernel` or its output, which that unsafe trait
// promises are plain data with one layout on host and device, valid as all-zero bytes.
unsafe impl<T: Copy> DeviceRepr for Raw<T> {}
// SAFETY: as above.
unsafe impl<T: Copy> ValidAsZeroBits for Raw<T> {}

/// When [`CudaBackend`] runs a launch once untimed before the timed one.
///
/// The code needs no warm-up to load: the module is loaded, and each entry point's attributes
/// read, when the backend is created. A warm-up only fills caches and clocks before a timing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum WarmUp {
    /// Before every run: all passes once, then outputs, tallies and status are zeroed again
    /// and the timed passes run. For benchmarks whose times must exclude cold caches; the GPU
    /// does every job twice.
    EveryRun,
    /// Only the first time an entry point is used by this backend, and then on at most one
    /// item per thread of the launch (long runs cut into batches, where running a batch twice
    /// would double its cost).
    FirstUse,
    /// Never (the default): a run does its work once.
    #[default]
    Off,
}

/// Runs kernels on a CUDA GPU: every [`DeviceKernel`] of the loaded module under every
/// strategy it has entry points for.
///
/// A run uploads the kernel's parameters, allocates zeroed outputs, tallies and a status word,
/// launches each pass of the strategy with the [`Launch`] shape (pass `p` is its own entry
/// point; block counters are initialised on the device exactly as the CPU backend does, by
/// `initial_block_counters`), times each pass with CUDA events (after a warm-up, see
/// [`WarmUp`]), and copies outputs and tallies back. [`Run::occupancy`] holds each pass's
/// theoretical occupancy from the driver (`cuOccupancyMaxActiveBlocksPerMultiprocessor` for the
/// block size, times warps per block, over the multiprocessor's most warps);
/// [`Run::counters`] is `None` (the GPU does not count; use Nsight Compute).
///
/// Blocks add to [`CudaBackend::tally_copies`] copies of the tally, block `b` to copy
/// `b % copies`, and the copies are added up after the run: atomics to one address are
/// serialised in the L2, and MCML's absorption bins by the source take most of them. On an H100,
/// 8 copies against one: fast-math MCML 26 % faster on skin, 3 % on the slab, the bit-identical
/// kernels 0-1 % (2026-11-23); then 16 against 8 gained 11 % more on skin and 5 % on the slab,
/// and at one block of 1,024 per SM 32 against 16 2.7 % on the slab (the default,
/// [`DEFAULT_TALLY_COPIES`](crate::DEFAULT_TALLY_COPIES)).
/// Integer sums, so the tallies are the same bit for bit with any number of copies.
#[derive(Debug)]
pub struct CudaBackend {
    gpu: GpuContext,
    warm_up: WarmUp,
    warmed: Mutex<Vec<&'static str>>,
    tally_copies: Option<u32>,
}

impl CudaBackend {
    /// Opens device `ordinal` with a PTX module of your own and its entry points `kernels`
    /// (the constant `device_entries!` defines): the backend runs every kernel type whose
    /// entry points the module has.
    ///
    /// # Errors
    /// As [`GpuContext::with_ptx`].
    pub fn with_ptx(ordinal: usize, ptx: &str, kernels: &[&str]) -> Result<Self, GpuError> {
        Ok(Self::from_context(GpuContext::with_ptx(
            ordinal, ptx, kernels,
        )?))
    }

    /// Opens device `ordinal` with a module as a build ships it (PTX and cubins): the cubin for
    /// this GPU where one is shipped, else the PTX ([`GpuContext::with_images`]).
    ///
    /// # Errors
    /// As [`GpuContext::with_ptx`].
    pub fn with_images(
        ordinal: usize,
        images: crate::ModuleImages,
        kernels: &[&str],
    ) -> Result<Self, GpuError> {
        Ok(Self::from_context(GpuContext::with_images(
            ordinal, images, kernels,
        )?))
    }

    /// A backend on an open context.
    pub fn from_context(gpu: GpuContext) -> Self {
        Self {
            gpu,
            warm_up: WarmUp::default(),
            warmed: Mutex::new(Vec::new()),
            tally_copies: None,
        }
    }

    /// The same backend with `copies` copies of the tally (at least 1; at most one per block of
    /// a launch is used) instead of the backend's choice:
    /// [`DEFAULT_TALLY_COPIES`](crate::DEFAULT_TALLY_COPIES), fewer where they would take more
    /// than [`TALLY_COPIES_MAX_BYTES`](crate::TALLY_COPIES_MAX_BYTES).
    pub fn with_tally_copies(mut self, copies: u32) -> Self {
        self.tally_copies = Some(copies.max(1));
        self
    }

    /// Changes the tally copies: `Some(copies)` as [`CudaBackend::with_tally_copies`], `None`
    /// for the backend's choice.
    pub fn set_tally_copies(&mut self, copies: Option<u32>) {
        self.tally_copies = copies.map(|c| c.max(1));
    }

    /// Copies of a tally of `tally_len` accumulators in a launch of `blocks` blocks.
    pub fn tally_copies(&self, tally_len: u32, blocks: u32) -> u32 {
        tally_copies(self.tally_copies, tally_len, blocks)
    }

    /// The same backend with another warm-up policy.
    pub fn with_warm_up(mut self, warm_up: WarmUp) -> Self {
        self.warm_up = warm_up;
        self
    }

    /// Changes the warm-up policy.
    pub fn set_warm_up(&mut self, warm_up: WarmUp) {
        self.warm_up = warm_up;
    }

    /// The context: device, kernel attributes, occupancy, launches of other kernels.
    pub fn gpu(&self) -> &GpuContext {
        &self.gpu
    }

    /// The entry points that run `strategy` on `kernel`, one per pass.
    ///
    /// # Errors
    /// [`GpuError::Strategy`] if the strategy cannot run this kernel at all,
    /// [`GpuError::NoEntryPoint`] if one of its passes was not compiled.
    pub fn entry_points<K: DeviceKernel>(
        kernel: &K,
        strategy: &Strategy,
    ) -> Result<Vec<&'static str>, GpuError> {
        let strategy_error = |source| GpuError::Strategy {
            kernel: K::KERNEL_NAME.into(),
            shape: K::SHAPE,
            source,
        };
        let passes = kernel.passes(strategy).map_err(strategy_error)?;
        (0..passes)
            .map(|pass| {
                K::entry_point(strategy, pass).ok_or_else(|| GpuError::NoEntryPoint {
                    kernel: K::KERNEL_NAME.into(),
                    strategy: format!("{strategy:?}"),
                    pass,
                    available: K::ENTRY_POINTS
                        .iter()
                        .filter(|e| e.numbers != reconverge_device::EntryNumbers::Unused)
                        .map(|e| e.name)
                        .collect::<Vec<_>>()
                        .join(", "),
                })
            })
            .collect()
    }

    /// [`Backend::run`] with the typed GPU error.
    ///
    /// # Errors
    /// [`GpuError::Strategy`], [`GpuError::NoEntryPoint`], [`GpuError::BadLaunch`],
    /// [`GpuError::OutOfMemory`], [`GpuError::Launch`] (a kernel fault, naming the entry
    /// point and the shape), [`GpuError::DeviceStatus`], or another driver error.
    pub fn try_run<K: DeviceKernel>(
        &self,
        kernel: &K,
        strategy: Strategy,
        items: u32,
        launch: Launch,
    ) -> Result<Run<K::Output>, GpuError> {
        let mut shape = LaunchShape::new(launch.threads_per_block, launch.blocks);
        if let Err(e) = launch.validate() {
            return Err(GpuError::BadLaunch {
                kernel: K::KERNEL_NAME.into(),
                shape,
                reason: e.to_string(),
            });
        }
        // Collaborative context collection's per-warp stacks: dynamic shared memory the launch
        // must give each block, within what a block may have without opting in.
        shape.dynamic_shared_bytes =
            kernel.dynamic_shared_bytes(&strategy, launch.threads_per_block);
        if shape.dynamic_shared_bytes > DYNAMIC_SHARED_LIMIT {
            return Err(GpuError::BadLaunch {
                kernel: K::KERNEL_NAME.into(),
                shape,
                reason: format!(
                    "{strategy} needs {} bytes of shared memory per block at this block size, over \
                     the {DYNAMIC_SHARED_LIMIT} a block may have: use fewer threads per block",
                    shape.dynamic_shared_bytes
                ),
            });
        }
        let names = Self::entry_points(kernel, &strategy)?;
        // Build one warp's program on the host first, as the CPU backend does, so that a bad
        // parameter is an error before anything runs.
        let probe = ModelWarp::new();
        let task = WarpTask::new(items, launch.blocks, 0, launch.threads_per_block, 0);
        if let Err(source) = kernel.program(&probe, &strategy, 0, task, &[]) {
            return Err(GpuError::Strategy {
                kernel: K::KERNEL_NAME.into(),
                shape: K::SHAPE,
                source,
            });
        }
        let tally_len = u32::try_from(kernel.tally_len()).map_err(|_| GpuError::InvalidInput {
            kernel: K::KERNEL_NAME.into(),
            reason: format!("{} tallies exceed u32 indexing", kernel.tally_len()),
        })?;
        let scratch_words = kernel.scratch_words(&strategy, items);
        let scratch_len = u32::try_from(scratch_words).map_err(|_| GpuError::InvalidInput {
            kernel: K::KERNEL_NAME.into(),
            reason: format!("{scratch_words} scratch words exceed u32 indexing"),
        })?;

        let tally_copies = self.tally_copies(tally_len, launch.blocks);
        let setup = Instant::now();
        let gpu = &self.gpu;
        let mut buffers = Buffers {
            kernel: gpu.upload(&[Raw(*kernel)], "kernel parameters")?,
            out: if std::mem::size_of::<K::Output>() == 0 {
                // Nothing is stored; the entry point still needs a valid pointer.
                Out::Empty(gpu.zeros::<u8>(1, "outputs (zero-sized)")?)
            } else {
                Out::Items(gpu.zeros::<Raw<K::Output>>(
                    (items as usize).max(1),
                    &format!("{items} outputs"),
                )?)
            },
            tally: gpu.zeros::<u64>(
                (tally_len as usize * tally_copies as usize).max(1),
                &format!("{tally_copies} copies of {tally_len} tallies"),
            )?,
            scratch: gpu.zeros::<u32>(
                (scratch_len as usize).max(1),
                &format!("{scratch_len} scratch words"),
            )?,
            work_counter: gpu.zeros::<u32>(1, "grid-wide work counter")?,
            status: gpu.zeros::<u32>(1, "status word")?,
            items,
            tally_len,
            tally_copies,
            scratch_len,
            parameters: strategy.parameters(),
        };
        let setup_time = setup.elapsed();

        if let Some(warm_items) = self.warm_up_items(&names, items, launch) {
            let timed_items = std::mem::replace(&mut buffers.items, warm_items);
            for (pass, name) in names.iter().enumerate() {
                buffers.launch(gpu, name, shape, pass as u32)?;
            }
            buffers.items = timed_items;
            buffers.zero(gpu)?;
        }

        let timed = Instant::now();
        let mut pass_times = Vec::with_capacity(names.len());
        let mut launched = Vec::with_capacity(names.len());
        // Passes in order; an occlusion-query loop repeats its last pass while the previous
        // one left work: the host reads the query word back between launches.
        let mut plan = PassPlan::new(names.len() as u32, kernel.repeat_last_pass_while(&strategy));
        while let Some(pass) = plan.next_pass(|w| buffers.read_and_zero_scratch(gpu, w))? {
            let name = names[pass as usize];
            let ms = buffers.launch(gpu, name, shape, pass)?;
            pass_times.push(Duration::from_secs_f64(f64::from(ms.max(0.0)) / 1e3));
            launched.push(name);
        }
        let status = gpu.download(&buffers.status)?;
        if let Some(&s) = status.first().filter(|&&s| s != 0) {
            return Err(GpuError::DeviceStatus {
                kernel: names.join("+"),
                shape,
                status: s,
            });
        }
        let outputs: Vec<K::Output> = match &buffers.out {
            Out::Items(out) => {
                let mut raw = gpu.download(out)?;
                raw.truncate(items as usize);
                raw.into_iter().map(|r| r.0).collect()
            }
            Out::Empty(_) => (0..items)
                // SAFETY: `K::Output` is zero-sized here, and valid as all-zero bytes (the
                // `DeviceKernel` contract).
                .map(|_| unsafe { std::mem::zeroed() })
                .collect(),
        };
        let tally = buffers.added_up_tally(gpu)?;
        let elapsed = setup_time + timed.elapsed();
        let occupancy: Vec<Option<f64>> = launched
            .iter()
            .map(|n| {
                gpu.occupancy_with_shared(n, launch.threads_per_block, shape.dynamic_shared_bytes)
                    .ok()
            })
            .collect();
        let fill = names.first().and_then(|first| fill(gpu, first, launch));
        Ok(Run {
            outputs,
            tally,
            counters: None,
            pass_times,
            elapsed,
            occupancy,
            launch,
            fill,
        })
    }

    /// [`Backend::launch_for`] with the typed GPU error: [`Launch::for_items`] on this
    /// device, each block size's blocks per multiprocessor from the occupancy calculator
    /// (`reconverge-occupancy`) over the registers and static shared memory the driver reports
    /// for the strategy's entry points (the most demanding pass decides), and the driver's own
    /// limit on the block size.
    ///
    /// # Errors
    /// [`GpuError::Strategy`] or [`GpuError::NoEntryPoint`], as [`CudaBackend::entry_points`].
    pub fn try_launch_for<K: DeviceKernel>(
        &self,
        kernel: &K,
        strategy: &Strategy,
        items: u32,
    ) -> Result<Launch, GpuError> {
        let names = Self::entry_points(kernel, strategy)?;
        let device = self.gpu.device();
        let arch = ComputeCapability::new(
            u32::try_from(device.major).unwrap_or(0),
            u32::try_from(device.minor).unwrap_or(0),
        )
        .limits()
        .ok();
        let attributes: Vec<_> = names
            .iter()
            .filter_map(|n| self.gpu.attributes(n).ok())
            .collect();
        let fits = |threads: u32| -> Option<u32> {
            let dynamic = kernel.dynamic_shared_bytes(strategy, threads);
            if dynamic > DYNAMIC_SHARED_LIMIT {
                return None;
            }
            attributes
                .iter()
                .map(|a| {
                    if threads > a.max_threads_per_block {
                        return None;
                    }
                    let resources = KernelResources::new(threads, a.registers_per_thread)
                        .with_static_smem(a.static_shared_bytes)
                        .with_dynamic_smem(dynamic);
                    match arch {
                        Some(arch) => {
                            calculate_occupancy(arch, &resources, &LaunchConfig::default())
                                .ok()
                                .map(|o| o.active_blocks_per_sm)
                        }
                        // A device newer than the calculator knows: the driver's own answer.
                        None => self
                            .gpu
                            .max_active_blocks_with_shared(&a.name, threads, dynamic)
                            .ok(),
                    }
                })
                .try_fold(u32::MAX, |least, fit| fit.map(|f| least.min(f)))
                .filter(|&f| f != u32::MAX)
        };
        let multiprocessors = u32::try_from(device.multiprocessors.max(1)).unwrap_or(1);
        Ok(Launch::for_items(strategy, items, multiprocessors, fits))
    }

    /// The items of this run's warm-up launches (`None`: no warm-up), recording the entry
    /// points as warm.
    fn warm_up_items(&self, names: &[&'static str], items: u32, launch: Launch) -> Option<u32> {
        let cold = match self.warm_up {
            WarmUp::EveryRun => return Some(items),
            WarmUp::Off => false,
            WarmUp::FirstUse => {
                let mut warmed = self
                    .warmed
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                let cold = names.iter().any(|n| !warmed.contains(n));
                for n in names {
                    if !warmed.contains(n) {
                        warmed.push(n);
                    }
                }
                cold
            }
        };
        let lanes = launch.blocks.saturating_mul(launch.threads_per_block);
        cold.then_some(items.min(lanes))
    }
}

/// [`Run::fill`] of a launch of entry point `name`: its theoretical occupancy times the share
/// of the blocks that fit on the GPU at once that the launch has (at most 1).
fn fill(gpu: &GpuContext, name: &str, launch: Launch) -> Option<f64> {
    let occupancy = gpu.occupancy(name, launch.threads_per_block).ok()?;
    let resident = gpu.resident_blocks(name, launch.threads_per_block).ok()?;
    Some(occupancy * (f64::from(launch.blocks) / f64::from(resident.max(1))).min(1.0))
}

/// The output buffer: one slot per item, or one byte when outputs are zero-sized.
enum Out<O> {
    Items(CudaSlice<Raw<O>>),
    Empty(CudaSlice<u8>),
}

/// The device buffers of one run.
struct Buffers<K, O> {
    kernel: CudaSlice<Raw<K>>,
    out: Out<O>,
    tally: CudaSlice<u64>,
    /// What the passes of a multi-pass strategy hand each other (`Kernel::scratch_words`).
    scratch: CudaSlice<u32>,
    /// The grid-wide work queue's counter, zeroed before every launch.
    work_counter: CudaSlice<u32>,
    status: CudaSlice<u32>,
    items: u32,
    tally_len: u32,
    /// Copies of the tally in `tally`, each `tally_len` long.
    tally_copies: u32,
    scratch_len: u32,
    /// The strategy's numbers, which an `_any` entry point takes at run time (a listed one
    /// has them compiled in and ignores these).
    parameters: StrategyParameters,
}

impl<K: Kernel<Output = O> + Copy, O: Copy> Buffers<K, O> {
    /// Launches entry point `name` (a `warp_kernel!` entry of kernel type `K`) for `pass`,
    /// timed; returns its kernel time in milliseconds.
    fn launch(
        &mut self,
        gpu: &GpuContext,
        name: &str,
        shape: LaunchShape,
        pass: u32,
    ) -> Result<f32, GpuError> {
        let stream = gpu.stream();
        // Each launch deals the whole range anew.
        stream
            .memset_zeros(&mut self.work_counter)
            .map_err(driver("cuMemsetD8Async"))?;
        // The guards order the stream's later work on these buffers after the launch.
        let (kernel, _k) = self.kernel.device_ptr(stream);
        let (out, _o) = match &mut self.out {
            Out::Items(o) => o.device_ptr_mut(stream),
            Out::Empty(o) => o.device_ptr_mut(stream),
        };
        let (tally, _t) = self.tally.device_ptr_mut(stream);
        let (scratch, _s) = self.scratch.device_ptr_mut(stream);
        let (work_counter, _w) = self.work_counter.device_ptr_mut(stream);
        let (status, _st) = self.status.device_ptr_mut(stream);
        let args = EntryArgs::<K> {
            kernel: kernel as *const K,
            out: out as *mut O,
            tally: tally as *mut u64,
            scratch: scratch as *mut u32,
            work_counter: work_counter as *mut u32,
            status: status as *mut u32,
            items: self.items,
            pass,
            tally_len: self.tally_len,
            tally_copies: self.tally_copies,
            scratch_len: self.scratch_len,
            parameters: self.parameters,
        };
        gpu.timed_launch(name, shape, |s, f, c| {
            let mut b = s.launch_builder(f);
            args.for_each_parameter(|p| {
                match p {
                    EntryParameter::Address(a) => b.arg(a),
                    EntryParameter::Word(w) => b.arg(w),
                    EntryParameter::Words(w) => b.arg(w),
                };
            });
            // SAFETY: every `warp_kernel!` entry point takes `EntryArgs<K>`'s fields in the
            // order `for_each_parameter` gives them (the one definition of the interface); its
            // pointers are this run's device buffers: `kernel` one `K`, `out` `items` outputs
            // (or one byte when they are zero-sized), `tally` `tally_copies * tally_len` u64s,
            // `scratch` `scratch_len` u32s, `work_counter` and `status` one u32 each.
            unsafe { b.launch(c) }.map(|_| ())
        })
    }

    /// Scratch word `word` as the last pass left it, zeroed on the device for the next pass
    /// (0 past the scratch's end).
    fn read_and_zero_scratch(&mut self, gpu: &GpuContext, word: usize) -> Result<u32, GpuError> {
        if word >= self.scratch_len as usize {
            return Ok(0);
        }
        let stream = gpu.stream();
        let Some(mut view) = self.scratch.try_slice_mut(word..word + 1) else {
            return Ok(0);
        };
        let value = stream
            .clone_dtoh(&view)
            .map_err(driver("cuMemcpyDtoH"))?
            .first()
            .copied()
            .unwrap_or(0);
        stream
            .memset_zeros(&mut view)
            .map_err(driver("cuMemsetD8Async"))?;
        Ok(value)
    }

    /// The tally, its copies added up: on the GPU where the module can, so that one copy
    /// crosses to the host instead of all of them (32 copies of MCML's skin tally are 29 MB);
    /// on the host otherwise. The same integers either way.
    fn added_up_tally(&mut self, gpu: &GpuContext) -> Result<Vec<u64>, GpuError> {
        let len = self.tally_len as usize;
        if len == 0 {
            return Ok(Vec::new());
        }
        // Once the GPU has added the copies into copy 0, only copy 0 may be read: adding the
        // downloaded copies again would count copies 1.. twice.
        if self.tally.len() >= len
            && gpu.add_up_tally_copies(&mut self.tally, self.tally_len, self.tally_copies)?
        {
            let mut tally = match self.tally.try_slice(0..len) {
                Some(first) => gpu.stream().clone_dtoh(&first),
                None => gpu.stream().clone_dtoh(&self.tally),
            }
            .map_err(driver("cuMemcpyDtoH"))?;
            tally.truncate(len);
            return Ok(tally);
        }
        Ok(add_up_copies(gpu.download(&self.tally)?, len))
    }

    /// Zeroes outputs, tallies, scratch and status (after a warm-up).
    fn zero(&mut self, gpu: &GpuContext) -> Result<(), GpuError> {
        let stream = gpu.stream();
        let memset = driver("cuMemsetD8Async");
        match &mut self.out {
            Out::Items(o) => stream.memset_zeros(o).map_err(&memset)?,
            Out::Empty(o) => stream.memset_zeros(o).map_err(&memset)?,
        }
        stream.memset_zeros(&mut self.tally).map_err(&memset)?;
        stream.memset_zeros(&mut self.scratch).map_err(&memset)?;
        stream.memset_zeros(&mut self.status).map_err(&memset)?;
        Ok(())
    }
}

impl From<GpuError> for BackendError {
    fn from(e: GpuError) -> Self {
        match e {
            GpuError::Strategy { shape, source, .. } => BackendError::Strategy { shape, source },
            GpuError::OutOfMemory { bytes, what } => BackendError::OutOfMemory {
                backend: "cuda",
                bytes,
                what,
            },
            e @ (GpuError::NoDriver | GpuError::NoDevice { .. }) => BackendError::Unavailable {
                backend: "cuda",
                message: e.to_string(),
            },
            e @ GpuError::NoEntryPoint { .. } => BackendError::NotCompiled {
                backend: "cuda",
                message: e.to_string(),
            },
            other => BackendError::Device {
                backend: "cuda",
                message: other.to_string(),
            },
        }
    }
}

impl<K: DeviceKernel> Backend<K> for CudaBackend {
    fn name(&self) -> &'static str {
        "cuda"
    }

    fn run_job(&self, job: Job<'_, K>) -> Result<Run<K::Output>, BackendError> {
        self.try_run(job.kernel, job.strategy, job.items, job.launch)
            .map_err(BackendError::from)
    }

    fn launch_for(
        &self,
        kernel: &K,
        strategy: &Strategy,
        items: u32,
    ) -> Result<Launch, BackendError> {
        self.try_launch_for(kernel, strategy, items)
            .map_err(BackendError::from)
    }
}

/// Dynamic shared memory a block may have without the kernel opting in to more
/// (`CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`), on every architecture since sm_20: the
/// most [`Kernel::dynamic_shared_bytes`] a launch may ask for here.
pub const DYNAMIC_SHARED_LIMIT: u32 = 48 * 1024;

/// The four schedules of the plain kernels that `reconverge_device::plain_kernels!` generates
/// for a workload: the kernels a CUDA programmer writes first, which reconverge's strategies
/// are measured against.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PlainSchedule {
    /// Thread `g` runs item `g`; the launch needs a thread per item.
    OnePerItem,
    /// Thread `g` runs items `g`, `g + threads`, ...
    GridStride,
    /// Every thread takes its next item from one global counter with its own atomic add.
    Persistent,
    /// Every thread takes its next item of its block's chunk from a counter of the block in
    /// shared memory with its own atomic add: the hand-written twin of dynamic work
    /// assignment (seed 004 fig. 5).
    BlockPersistent,
}

impl PlainSchedule {
    /// The four, in the order of the macro's names.
    pub const ALL: [PlainSchedule; 4] = [
        PlainSchedule::OnePerItem,
        PlainSchedule::GridStride,
        PlainSchedule::Persistent,
        PlainSchedule::BlockPersistent,
    ];

    /// The schedule's name, which ends its entry point's (`walk_one_per_item`, ...).
    pub const fn name(self) -> &'static str {
        match self {
            PlainSchedule::OnePerItem => "one_per_item",
            PlainSchedule::GridStride => "grid_stride",
            PlainSchedule::Persistent => "persistent",
            PlainSchedule::BlockPersistent => "block_persistent",
        }
    }
}

impl CudaBackend {
    /// Runs the plain kernel `prefix_SCHEDULE` of [`PlainSchedule`] on `kernel`'s workload over
    /// items `0..items` with `launch`, timed with CUDA events, and returns what
    /// [`Backend::run`] returns for a strategy (no tallies; the plain kernels keep none).
    /// `kernel` is the workload in its shape (`BranchLoopKernel(walk)`, a one-field
    /// `#[repr(transparent)]` wrapper), so the device reads the workload itself.
    ///
    /// # Errors
    /// [`GpuError::MissingKernel`] if the module has no such entry point, [`GpuError::BadLaunch`]
    /// for a launch with too few threads for [`PlainSchedule::OnePerItem`] or one the kernel
    /// cannot take, and the driver's errors.
    pub fn run_plain<K: DeviceKernel>(
        &self,
        prefix: &str,
        schedule: PlainSchedule,
        kernel: &K,
        items: u32,
        launch: Launch,
    ) -> Result<Run<K::Output>, GpuError> {
        let name = format!("{prefix}_{}", schedule.name());
        if schedule == PlainSchedule::OnePerItem && launch.threads() < u64::from(items) {
            return Err(GpuError::BadLaunch {
                kernel: name,
                shape: LaunchShape::new(launch.threads_per_block, launch.blocks),
                reason: format!("{items} items need as many threads, one each"),
            });
        }
        self.run_hand_written(&name, kernel, items, launch)
    }

    /// Runs the hand-written entry point `name` (a plain kernel, or a technique's hand-written
    /// twin such as `reconverge_device::unification_twin!`'s) with the plain kernels' arguments
    /// `(workload: *const W, items: u32, out: *mut Output, counter: *mut u32)` on `kernel`'s
    /// workload over items `0..items` with `launch`, timed with CUDA events, as
    /// [`CudaBackend::run_plain`] does.
    ///
    /// # Errors
    /// [`GpuError::MissingKernel`] if the module has no such entry point, a launch the kernel
    /// cannot take, and the driver's errors.
    pub fn run_hand_written<K: DeviceKernel>(
        &self,
        name: &str,
        kernel: &K,
        items: u32,
        launch: Launch,
    ) -> Result<Run<K::Output>, GpuError> {
        self.run_hand_written_with(name, kernel, items, launch, &[])
    }

    /// Runs a hand-written twin made of several launches that share memory (z-cull masking's
    /// mask and path kernels, the occlusion-query loop's relaunches: `reconverge_device::
    /// zcull_twin!`, `occlusion_twin!`), each entry point `(workload: *const W, items: u32,
    /// out: *mut Output, counter: *mut u32, scratch: *mut u8, a: u32, b: u32)`, on `kernel`'s
    /// workload over items `0..items` with `launch`. `scratch_bytes` zeroed bytes are shared by
    /// every launch. Before each launch the counter is zeroed and `next(pass, counter)` names
    /// the entry point and its `a`, `b` (`counter`: what the previous launch left in it, 0
    /// before the first), or `None` to stop: the host loop of GPU Gems 2 §34.3, which reads its
    /// occlusion query after each pass. Each launch is timed with CUDA events
    /// ([`Run::pass_times`]).
    ///
    /// # Errors
    /// As [`CudaBackend::run_hand_written`]; [`GpuError::InvalidInput`] after `max_launches`
    /// launches without `next` stopping.
    pub fn run_hand_written_passes<K: DeviceKernel>(
        &self,
        kernel: &K,
        items: u32,
        launch: Launch,
        scratch_bytes: usize,
        max_launches: u32,
        mut next: impl FnMut(u32, u32) -> Option<(&'static str, u32, u32)>,
    ) -> Result<Run<K::Output>, GpuError> {
        let shape = LaunchShape::new(launch.threads_per_block, launch.blocks);
        let gpu = &self.gpu;
        let started = Instant::now();
        let workload = gpu.upload(&[Raw(*kernel)], "kernel parameters")?;
        let out = gpu.zeros::<Raw<K::Output>>((items as usize).max(1), "outputs")?;
        // In u64 words, so that the scratch is 8-aligned for the states kept in it.
        let scratch = gpu.zeros::<u64>(scratch_bytes.div_ceil(8).max(1), "twin scratch")?;
        let mut pass_times = Vec::new();
        let mut occupancy = Vec::new();
        let mut left = 0u32;
        let mut last = None;
        for pass in 0.. {
            let Some((name, a, b)) = next(pass, left) else {
                break;
            };
            if pass >= max_launches {
                return Err(GpuError::InvalidInput {
                    kernel: name.into(),
                    reason: format!("still not done after {max_launches} launches"),
                });
            }
            let counter = gpu.zeros::<u32>(1, "work counter")?;
            let ms = gpu.timed_launch(name, shape, |s, f, c| {
                let mut l = s.launch_builder(f);
                l.arg(&workload).arg(&items).arg(&out).arg(&counter);
                l.arg(&scratch).arg(&a).arg(&b);
                // SAFETY: the entry point is `(workload: *const W, items: u32, out: *mut
                // Output, counter: *mut u32, scratch: *mut u8, a: u32, b: u32)` (the caller
                // names one); `K` is `W` in a transparent wrapper (the `DeviceKernel`
                // contract), `out` holds `items` outputs, `counter` one zeroed u32, `scratch`
                // `scratch_bytes` bytes, 8-aligned.
                unsafe { l.launch(c) }.map(|_| ())
            })?;
            pass_times.push(Duration::from_secs_f64(f64::from(ms.max(0.0)) / 1e3));
            occupancy.push(gpu.occupancy(name, launch.threads_per_block).ok());
            left = gpu.download(&counter)?.first().copied().unwrap_or(0);
            last = Some(name);
        }
        let mut outputs: Vec<K::Output> = gpu.download(&out)?.into_iter().map(|r| r.0).collect();
        outputs.truncate(items as usize);
        let fill = last.and_then(|name| fill(gpu, name, launch));
        Ok(Run {
            outputs,
            tally: Vec::new(),
            counters: None,
            pass_times,
            elapsed: started.elapsed(),
            occupancy,
            launch,
            fill,
        })
    }

    /// [`CudaBackend::run_hand_written`] for an entry point that takes numbers of its own after
    /// the plain kernels' four arguments, `numbers` in order, each a `u32` (a twin whose
    /// decision's numbers come at launch, as `reconverge_device::iteration_delaying_twin!`'s
    /// do, and as the CUDA C++ twins take them).
    ///
    /// # Errors
    /// As [`CudaBackend::run_hand_written`]; the module cannot tell whether the entry point
    /// takes `numbers`, so the caller names one that does.
    pub fn run_hand_written_with<K: DeviceKernel>(
        &self,
        name: &str,
        kernel: &K,
        items: u32,
        launch: Launch,
        numbers: &[u32],
    ) -> Result<Run<K::Output>, GpuError> {
        let shape = LaunchShape::new(launch.threads_per_block, launch.blocks);
        let gpu = &self.gpu;
        let started = Instant::now();
        let workload = gpu.upload(&[Raw(*kernel)], "kernel parameters")?;
        let out = gpu.zeros::<Raw<K::Output>>((items as usize).max(1), "outputs")?;
        let counter = gpu.zeros::<u32>(1, "work counter")?;
        let ms = gpu.timed_launch(name, shape, |s, f, c| {
            let mut b = s.launch_builder(f);
            b.arg(&workload).arg(&items).arg(&out).arg(&counter);
            for n in numbers {
                b.arg(n);
            }
            // SAFETY: a hand-written entry point (the caller names one) is `(workload: *const W, items: u32,
            // out: *mut Output, counter: *mut u32)` followed by one `u32` per number of
            // `numbers`; `K` is `W` in a transparent wrapper (the `DeviceKernel` contract),
            // `out` holds `items` outputs, `counter` one zeroed u32.
            unsafe { b.launch(c) }.map(|_| ())
        })?;
        let mut outputs: Vec<K::Output> = gpu.download(&out)?.into_iter().map(|r| r.0).collect();
        outputs.truncate(items as usize);
        let occupancy = gpu.occupancy(name, launch.threads_per_block).ok();
        let fill = fill(gpu, name, launch);
        Ok(Run {
            outputs,
            tally: Vec::new(),
            counters: None,
            pass_times: vec![Duration::from_secs_f64(f64::from(ms.max(0.0)) / 1e3)],
            elapsed: started.elapsed(),
            occupancy: vec![occupancy],
            launch,
            fill,
        })
    }
}
