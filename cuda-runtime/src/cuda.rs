//! The host side of the CUDA backend (feature `runtime`): context, modules loaded on first use,
//! kernel attributes, buffers and timed launches.

use std::sync::{Arc, OnceLock};

use cudarc::driver::sys::{CUevent_flags, CUfunction_attribute, CUresult};
use cudarc::driver::{
    CudaContext, CudaFunction, CudaModule, CudaSlice, CudaStream, DeviceRepr, DriverError,
    LaunchConfig, PushKernelArg, ValidAsZeroBits,
};

use crate::error::{GpuError, LaunchShape};
use crate::images::{ImageChoice, LoadedImage, ModuleImages, PtxReason, force_ptx_from_env};

/// The device a [`GpuContext`] runs on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceInfo {
    /// CUDA device ordinal.
    pub ordinal: usize,
    /// The device's name ("NVIDIA H100 80GB HBM3").
    pub name: String,
    /// Compute capability, major.
    pub major: i32,
    /// Compute capability, minor.
    pub minor: i32,
    /// Streaming multiprocessors.
    pub multiprocessors: i32,
    /// Global memory in bytes.
    pub total_memory: usize,
    /// Resident threads per multiprocessor (2048 on an H100): 32 times the most warps.
    pub max_threads_per_multiprocessor: i32,
}

/// What the driver reports about one compiled kernel (`cuFuncGetAttribute`): the inputs of
/// an occupancy calculation (`reconverge-occupancy`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelAttributes {
    /// The entry point's name.
    pub name: String,
    /// Registers per thread (`CU_FUNC_ATTRIBUTE_NUM_REGS`).
    pub registers_per_thread: u32,
    /// Static shared memory per block in bytes (`CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES`).
    pub static_shared_bytes: u32,
    /// The largest block this kernel can be launched with on this device
    /// (`CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK`; below 1024 when registers limit it).
    pub max_threads_per_block: u32,
    /// Constant memory in bytes (`CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES`).
    pub const_bytes: u32,
    /// Local memory per thread in bytes, spills included (`CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES`).
    pub local_bytes_per_thread: u32,
    /// PTX ISA version the kernel was compiled from, times 10 (`CU_FUNC_ATTRIBUTE_PTX_VERSION`).
    pub ptx_version: u32,
    /// The binary's architecture, major * 10 + minor (`CU_FUNC_ATTRIBUTE_BINARY_VERSION`).
    pub binary_version: u32,
}

/// A result with the time its kernel took on the GPU (CUDA events recorded around the launch).
#[derive(Clone, Debug, PartialEq)]
pub struct Timed<T> {
    /// The result.
    pub value: T,
    /// Kernel time in milliseconds.
    pub kernel_ms: f32,
}

/// A CUDA context on one device and the modules (PTX or cubins) it runs kernels of.
///
/// Modules load lazily: each the first time one of its kernels is needed (its attributes, an
/// occupancy query, a launch), and each kernel of it the first time it is needed, so that a run
/// loads, and from PTX JIT-compiles, only what it uses. An error of that load (a module the
/// driver rejects, a kernel the module lacks) comes from the first call that needs it.
#[derive(Debug)]
pub struct GpuContext {
    // Kept alive for the stream, modules and functions, which refer to it.
    context: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    modules: Vec<LazyModule>,
    device: DeviceInfo,
}

/// A module's image as a context is given it.
#[derive(Clone)]
pub enum ModuleImage {
    /// PTX and cubins as a build ships them: the context loads the cubin for its GPU, or the PTX
    /// ([`ModuleImages::choose`]).
    Shipped(ModuleImages),
    /// PTX text alone, compiled by the driver's JIT.
    Ptx(String),
    /// One cubin image from `ptxas`, for this GPU's architecture.
    Cubin(Vec<u8>),
}

impl std::fmt::Debug for ModuleImage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Shipped(m) => m.fmt(f),
            Self::Ptx(p) => write!(f, "Ptx({} bytes)", p.len()),
            Self::Cubin(c) => write!(f, "Cubin({} bytes)", c.len()),
        }
    }
}

/// One module of a context, loaded the first time one of its kernels is needed.
#[derive(Debug)]
struct LazyModule {
    name: String,
    image: ModuleImage,
    kernels: Vec<String>,
    loaded: OnceLock<Result<LoadedModule, GpuError>>,
}

#[derive(Debug)]
struct LoadedModule {
    module: Arc<CudaModule>,
    image: LoadedImage,
    /// One per kernel of [`LazyModule::kernels`], looked up the first time it is needed.
    functions: Vec<OnceLock<Result<(KernelAttributes, CudaFunction), GpuError>>>,
    /// `reconverge-device`'s kernel that adds tally copies up, where the module has it.
    add_up_tally_copies: OnceLock<Option<CudaFunction>>,
}

/// The driver's name and description of an error.
fn describe(e: &DriverError) -> (String, String) {
    let code = format!("{:?}", e.0);
    let message = e
        .error_string()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|_| "no description".to_string());
    (code, message)
}

pub(crate) fn driver(operation: &'static str) -> impl Fn(DriverError) -> GpuError {
    move |e| {
        let (code, message) = describe(&e);
        GpuError::Driver {
            operation,
            code,
            message,
        }
    }
}

impl GpuContext {
    /// Makes this context current on the calling thread: the driver's calls that take no
    /// stream (occupancy queries) act on the current context, so a thread other than the one
    /// that opened it must call this first.
    ///
    /// # Errors
    /// A driver error.
    pub fn bind_to_thread(&self) -> Result<(), GpuError> {
        self.context
            .bind_to_thread()
            .map_err(driver("cuCtxSetCurrent"))
    }

    /// How many CUDA devices the driver reports (0 without a driver or a device).
    ///
    /// # Errors
    /// A driver error other than "no device".
    pub fn device_count() -> Result<usize, GpuError> {
        // SAFETY: only tries to open the library by its usual names; no CUDA call is made.
        if !unsafe { cudarc::driver::sys::is_culib_present() } {
            return Ok(0);
        }
        match CudaContext::device_count() {
            Ok(n) => Ok(usize::try_from(n).unwrap_or(0)),
            Err(e) if e.0 == CUresult::CUDA_ERROR_NO_DEVICE => Ok(0),
            Err(e) => Err(driver("cuInit / cuDeviceGetCount")(e)),
        }
    }

    /// Opens device `ordinal` with a cubin image (what `ptxas -arch=sm_XX` makes from a PTX
    /// module for this GPU, which saves the driver's JIT compilation) whose kernels are
    /// `kernels`.
    ///
    /// # Errors
    /// As [`GpuContext::with_ptx`].
    pub fn with_cubin(ordinal: usize, image: Vec<u8>, kernels: &[&str]) -> Result<Self, GpuError> {
        Self::with_modules(ordinal, [("cubin", ModuleImage::Cubin(image), kernels)])
    }

    /// Opens device `ordinal` with the module `ptx` whose kernels are `kernels`.
    ///
    /// # Errors
    /// [`GpuError::NoDriver`] where `libcuda` cannot be loaded (checked before any driver call,
    /// which would otherwise panic inside cudarc), [`GpuError::NoDevice`], a driver error, or
    /// [`GpuError::ModuleLoad`] for PTX with a NUL byte. The module loads when a kernel of it
    /// is first needed, and errors of that load come from that call.
    pub fn with_ptx(ordinal: usize, ptx: &str, kernels: &[&str]) -> Result<Self, GpuError> {
        Self::with_modules(ordinal, [("ptx", ModuleImage::Ptx(ptx.into()), kernels)])
    }

    /// Opens device `ordinal` with a module as a build ships it: the cubin for this GPU where
    /// one is shipped, else the PTX ([`ModuleImages::choose`]; [`FORCE_PTX_ENV`](crate::FORCE_PTX_ENV) forces
    /// the PTX). [`GpuContext::loaded_images`] tells which was loaded.
    ///
    /// # Errors
    /// As [`GpuContext::with_ptx`].
    pub fn with_images(
        ordinal: usize,
        images: ModuleImages,
        kernels: &[&str],
    ) -> Result<Self, GpuError> {
        Self::with_modules(
            ordinal,
            [(images.name, ModuleImage::Shipped(images), kernels)],
        )
    }

    /// Opens device `ordinal` with several modules, each `(name, image, its kernels)`; a
    /// kernel listed by more than one is taken from the first. Each module loads the first
    /// time one of its kernels is needed, so a run loads only the modules it uses.
    ///
    /// # Errors
    /// As [`GpuContext::with_ptx`].
    pub fn with_modules<N, K>(
        ordinal: usize,
        modules: impl IntoIterator<Item = (N, ModuleImage, K)>,
    ) -> Result<Self, GpuError>
    where
        N: Into<String>,
        K: IntoIterator,
        K::Item: AsRef<str>,
    {
        let modules: Vec<LazyModule> = modules
            .into_iter()
            .map(|(name, image, kernels)| LazyModule {
                name: name.into(),
                image,
                kernels: kernels
                    .into_iter()
                    .map(|k| k.as_ref().to_string())
                    .collect(),
                loaded: OnceLock::new(),
            })
            .collect();
        for m in &modules {
            let text = match &m.image {
                ModuleImage::Ptx(p) => Some(p.as_str()),
                ModuleImage::Shipped(s) => Some(s.ptx),
                ModuleImage::Cubin(_) => None,
            };
            // CString, which the driver is given, cannot hold one; said here, before any
            // driver call, so the same on every machine.
            if text.is_some_and(|t| t.contains('\0')) {
                return Err(GpuError::ModuleLoad {
                    code: "invalid PTX".into(),
                    message: format!("module {}: the PTX text contains a NUL byte", m.name),
                });
            }
        }
        // SAFETY: only tries to open the library by its usual names; no CUDA call is made.
        if !unsafe { cudarc::driver::sys::is_culib_present() } {
            return Err(GpuError::NoDriver);
        }
        let count = match CudaContext::device_count() {
            Ok(n) => usize::try_from(n).unwrap_or(0),
            Err(e) if e.0 == CUresult::CUDA_ERROR_NO_DEVICE => 0,
            Err(e) => return Err(driver("cuInit / cuDeviceGetCount")(e)),
        };
        if ordinal >= count {
            return Err(GpuError::NoDevice { ordinal, count });
        }
        let context = CudaContext::new(ordinal).map_err(driver("cuDevicePrimaryCtxRetain"))?;
        let attr = |a| context.attribute(a).map_err(driver("cuDeviceGetAttribute"));
        use cudarc::driver::sys::CUdevice_attribute as D;
        let device = DeviceInfo {
            ordinal,
            name: context.name().map_err(driver("cuDeviceGetName"))?,
            major: attr(D::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?,
            minor: attr(D::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?,
            multiprocessors: attr(D::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?,
            total_memory: context.total_mem().map_err(driver("cuDeviceTotalMem"))?,
            max_threads_per_multiprocessor: attr(
                D::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR,
            )?,
        };
        let stream = context.default_stream();
        Ok(Self {
            context,
            stream,
            modules,
            device,
        })
    }

    /// Module `m`, loaded on first use.
    fn module<'a>(&self, m: &'a LazyModule) -> Result<&'a LoadedModule, GpuError> {
        m.loaded
            .get_or_init(|| self.load_module(m))
            .as_ref()
            .map_err(Clone::clone)
    }

    fn load_module(&self, m: &LazyModule) -> Result<LoadedModule, GpuError> {
        let (image, loaded) = match &m.image {
            ModuleImage::Ptx(ptx) => (
                cudarc::nvrtc::Ptx::from_src(ptx.as_str()),
                LoadedImage::Ptx(PtxReason::PtxOnly),
            ),
            ModuleImage::Cubin(image) => (
                cudarc::nvrtc::Ptx::from_binary(image.clone()),
                LoadedImage::GivenCubin,
            ),
            ModuleImage::Shipped(images) => {
                match images.choose(self.device.major, self.device.minor, force_ptx_from_env()) {
                    ImageChoice::Cubin(i) => {
                        let (arch, image) = images.cubins[i];
                        (
                            cudarc::nvrtc::Ptx::from_binary(image.to_vec()),
                            LoadedImage::Sass {
                                arch: arch.to_string(),
                            },
                        )
                    }
                    ImageChoice::Ptx(why) => (
                        cudarc::nvrtc::Ptx::from_src(images.ptx),
                        LoadedImage::Ptx(why),
                    ),
                }
            }
        };
        let module = self.context.load_module(image).map_err(|e| {
            let (code, message) = describe(&e);
            GpuError::ModuleLoad {
                code,
                message: format!("module {} ({loaded}): {message}", m.name),
            }
        })?;
        Ok(LoadedModule {
            module,
            image: loaded,
            functions: m.kernels.iter().map(|_| OnceLock::new()).collect(),
            add_up_tally_copies: OnceLock::new(),
        })
    }

    /// Loads the modules of `kernels` and looks the kernels up now rather than at their first
    /// use: so that a program's phase of opening GPUs includes loading what it will run.
    ///
    /// # Errors
    /// As [`GpuContext::attributes`], for the first kernel that fails.
    pub fn preload(&self, kernels: &[&str]) -> Result<(), GpuError> {
        kernels
            .iter()
            .try_for_each(|k| self.function(k).map(|_| ()))
    }

    /// Each module loaded so far, by name, with what it was loaded from (a cubin, or PTX and
    /// why).
    pub fn loaded_images(&self) -> Vec<(&str, &LoadedImage)> {
        self.modules
            .iter()
            .filter_map(|m| match m.loaded.get() {
                Some(Ok(l)) => Some((m.name.as_str(), &l.image)),
                _ => None,
            })
            .collect()
    }

    /// The device.
    pub fn device(&self) -> &DeviceInfo {
        &self.device
    }

    /// The attributes of every kernel of every module, loading them all.
    ///
    /// # Errors
    /// As [`GpuContext::attributes`], for the first kernel that fails.
    pub fn kernels(&self) -> Result<Vec<&KernelAttributes>, GpuError> {
        self.modules
            .iter()
            .flat_map(|m| &m.kernels)
            .map(|k| self.attributes(k))
            .collect()
    }

    /// The attributes of kernel `name`, loading its module if it is not yet.
    ///
    /// # Errors
    /// [`GpuError::MissingKernel`] if no module of the context lists it or its module lacks it,
    /// [`GpuError::ModuleLoad`] if its module cannot be loaded.
    pub fn attributes(&self, name: &str) -> Result<&KernelAttributes, GpuError> {
        self.function(name).map(|(a, _)| a)
    }

    /// Blocks of `threads_per_block` threads (and no dynamic shared memory) of kernel `name`
    /// that fit on one multiprocessor at once, as the driver computes it
    /// (`cuOccupancyMaxActiveBlocksPerMultiprocessor`).
    ///
    /// # Errors
    /// [`GpuError::MissingKernel`], or the driver's error (a block size the kernel cannot take).
    pub fn max_active_blocks(&self, name: &str, threads_per_block: u32) -> Result<u32, GpuError> {
        self.max_active_blocks_with_shared(name, threads_per_block, 0)
    }

    /// [`GpuContext::max_active_blocks`] for blocks that each take `dynamic_shared_bytes` of
    /// dynamic shared memory.
    ///
    /// # Errors
    /// As [`GpuContext::max_active_blocks`].
    pub fn max_active_blocks_with_shared(
        &self,
        name: &str,
        threads_per_block: u32,
        dynamic_shared_bytes: u32,
    ) -> Result<u32, GpuError> {
        let (_, f) = self.function(name)?;
        f.occupancy_max_active_blocks_per_multiprocessor(
            threads_per_block,
            dynamic_shared_bytes as usize,
            None,
        )
        .map_err(driver("cuOccupancyMaxActiveBlocksPerMultiprocessor"))
    }

    /// Blocks of `threads_per_block` threads of kernel `name` that fill every multiprocessor
    /// once ([`GpuContext::max_active_blocks`] times the multiprocessors, at least one per
    /// multiprocessor): the grid of a persistent-lane launch, whose lanes take items until
    /// none is left.
    ///
    /// # Errors
    /// As [`GpuContext::max_active_blocks`].
    pub fn resident_blocks(&self, name: &str, threads_per_block: u32) -> Result<u32, GpuError> {
        let per_sm = self.max_active_blocks(name, threads_per_block)?.max(1);
        let sms = u32::try_from(self.device.multiprocessors.max(1)).unwrap_or(1);
        Ok(per_sm.saturating_mul(sms))
    }

    /// The theoretical occupancy of kernel `name` in blocks of `threads_per_block`: active
    /// warps per multiprocessor ([`GpuContext::max_active_blocks`] times warps per block) over
    /// the most the multiprocessor holds, 0 to 1.
    ///
    /// # Errors
    /// As [`GpuContext::max_active_blocks`].
    pub fn occupancy(&self, name: &str, threads_per_block: u32) -> Result<f64, GpuError> {
        self.occupancy_with_shared(name, threads_per_block, 0)
    }

    /// [`GpuContext::occupancy`] for blocks that each take `dynamic_shared_bytes` of dynamic
    /// shared memory.
    ///
    /// # Errors
    /// As [`GpuContext::max_active_blocks`].
    pub fn occupancy_with_shared(
        &self,
        name: &str,
        threads_per_block: u32,
        dynamic_shared_bytes: u32,
    ) -> Result<f64, GpuError> {
        let blocks =
            self.max_active_blocks_with_shared(name, threads_per_block, dynamic_shared_bytes)?;
        let warps = f64::from(blocks) * f64::from(threads_per_block.div_ceil(32));
        let max_warps = f64::from(self.device.max_threads_per_multiprocessor.max(32) / 32);
        Ok((warps / max_warps).min(1.0))
    }

    pub(crate) fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    pub(crate) fn function(
        &self,
        name: &str,
    ) -> Result<&(KernelAttributes, CudaFunction), GpuError> {
        let missing = || GpuError::MissingKernel {
            kernel: name.into(),
        };
        let (m, k) = self
            .modules
            .iter()
            .find_map(|m| m.kernels.iter().position(|k| k == name).map(|k| (m, k)))
            .ok_or_else(missing)?;
        let loaded = self.module(m)?;
        loaded.functions[k]
            .get_or_init(|| {
                if name.contains('\0') {
                    return Err(missing());
                }
                let function = loaded.module.load_function(name).map_err(|_| missing())?;
                Ok((attributes_of(name, &function)?, function))
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    /// The add-up kernel of the first loaded module that has it: a module whose kernels ran.
    fn add_up_function(&self) -> Option<&CudaFunction> {
        self.modules
            .iter()
            .filter_map(|m| match m.loaded.get() {
                Some(Ok(l)) => Some(l),
                _ => None,
            })
            .find_map(|l| {
                l.add_up_tally_copies
                    .get_or_init(|| {
                        l.module
                            .load_function(reconverge_device::tally_copies::ADD_UP_TALLY_COPIES)
                            .ok()
                    })
                    .as_ref()
            })
    }

    /// Copies `data` to a new device buffer.
    ///
    /// # Errors
    /// [`GpuError::OutOfMemory`] or another driver error, naming `what`.
    pub fn upload<T: DeviceRepr>(&self, data: &[T], what: &str) -> Result<CudaSlice<T>, GpuError> {
        self.stream
            .clone_htod(data)
            .map_err(|e| alloc_error(e, std::mem::size_of_val(data), what))
    }

    /// A zeroed device buffer of `len` elements.
    ///
    /// # Errors
    /// As [`GpuContext::upload`].
    pub fn zeros<T: DeviceRepr + ValidAsZeroBits>(
        &self,
        len: usize,
        what: &str,
    ) -> Result<CudaSlice<T>, GpuError> {
        self.stream
            .alloc_zeros(len)
            .map_err(|e| alloc_error(e, len * std::mem::size_of::<T>(), what))
    }

    /// Copies a device buffer back to the host.
    ///
    /// # Errors
    /// A driver error (a fault of an earlier kernel also surfaces here).
    pub fn download<T: DeviceRepr>(&self, buffer: &CudaSlice<T>) -> Result<Vec<T>, GpuError> {
        self.stream
            .clone_dtoh(buffer)
            .map_err(driver("cuMemcpyDtoH"))
    }

    /// Adds copies `1..copies` of the `len`-long tally in `tally` into copy 0 on the GPU
    /// (`reconverge_device::tally_copies`, wrapping integer sums) and returns `true`; `false`,
    /// with nothing done, where the module lacks the kernel.
    ///
    /// # Errors
    /// A driver error of the launch.
    pub(crate) fn add_up_tally_copies(
        &self,
        tally: &mut CudaSlice<u64>,
        len: u32,
        copies: u32,
    ) -> Result<bool, GpuError> {
        let Some(function) = self.add_up_function() else {
            return Ok(false);
        };
        if copies <= 1 || len == 0 {
            return Ok(true);
        }
        if tally.len() < len as usize * copies as usize {
            return Err(GpuError::InvalidInput {
                kernel: reconverge_device::tally_copies::ADD_UP_TALLY_COPIES.into(),
                reason: format!("{} accumulators, not {copies} copies of {len}", tally.len()),
            });
        }
        const THREADS: u32 = 256;
        // A grid-stride loop: enough blocks to fill the GPU, not one per 256 accumulators.
        let fill = u32::try_from(self.device.multiprocessors.max(1))
            .unwrap_or(1)
            .saturating_mul(8);
        let config = LaunchConfig {
            grid_dim: (len.div_ceil(THREADS).clamp(1, fill), 1, 1),
            block_dim: (THREADS, 1, 1),
            shared_mem_bytes: 0,
        };
        let mut b = self.stream.launch_builder(function);
        b.arg(tally).arg(&len).arg(&copies);
        // SAFETY: the kernel's signature is `(tally: *mut u64, len: u32, copies: u32)`, and
        // `tally` holds at least `copies * len` accumulators (checked above).
        unsafe { b.launch(config) }.map_err(driver("cuLaunchKernel"))?;
        Ok(true)
    }

    /// Checks `shape` against `kernel`'s limits, launches it through `launch` between two
    /// timing events, waits for it, and returns the kernel time in milliseconds: how kernels
    /// with signatures of their own (self-tests, say) are launched; `launch` pushes the
    /// arguments with cudarc's `launch_builder` and is `unsafe` on their types.
    ///
    /// # Errors
    /// [`GpuError::MissingKernel`], [`GpuError::BadLaunch`] for a shape the kernel cannot run,
    /// or [`GpuError::Launch`] for a failure of the launch or the kernel.
    pub fn timed_launch(
        &self,
        kernel: &str,
        shape: LaunchShape,
        launch: impl FnOnce(&CudaStream, &CudaFunction, LaunchConfig) -> Result<(), DriverError>,
    ) -> Result<f32, GpuError> {
        let (attrs, function) = self.function(kernel)?;
        let bad = |reason: String| GpuError::BadLaunch {
            kernel: kernel.into(),
            shape,
            reason,
        };
        if shape.blocks == 0 || shape.blocks > i32::MAX as u32 {
            return Err(bad(format!(
                "{} blocks: must be 1 to 2^31 - 1",
                shape.blocks
            )));
        }
        if shape.threads_per_block == 0 || !shape.threads_per_block.is_multiple_of(32) {
            return Err(bad(
                "threads per block must be a positive multiple of 32 (whole warps)".into(),
            ));
        }
        if shape.threads_per_block > attrs.max_threads_per_block {
            return Err(bad(format!(
                "this kernel allows at most {} threads per block ({} registers per thread)",
                attrs.max_threads_per_block, attrs.registers_per_thread
            )));
        }
        let failed = |e: DriverError| {
            let (code, message) = describe(&e);
            match e.0 {
                CUresult::CUDA_ERROR_INVALID_VALUE
                | CUresult::CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES => {
                    bad(format!("{code} ({message})"))
                }
                _ => GpuError::Launch {
                    kernel: kernel.into(),
                    shape,
                    code,
                    message,
                },
            }
        };
        let config = LaunchConfig {
            grid_dim: (shape.blocks, 1, 1),
            block_dim: (shape.threads_per_block, 1, 1),
            shared_mem_bytes: shape.dynamic_shared_bytes,
        };
        let start = self
            .stream
            .record_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
            .map_err(driver("cuEventRecord"))?;
        launch(&self.stream, function, config).map_err(failed)?;
        let end = self
            .stream
            .record_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
            .map_err(driver("cuEventRecord"))?;
        // Faults inside the kernel surface here, at the first synchronisation.
        end.synchronize().map_err(failed)?;
        start.elapsed_ms(&end).map_err(driver("cuEventElapsedTime"))
    }
}

fn alloc_error(e: DriverError, bytes: usize, what: &str) -> GpuError {
    if e.0 == CUresult::CUDA_ERROR_OUT_OF_MEMORY {
        GpuError::OutOfMemory {
            bytes: bytes as u64,
            what: what.into(),
        }
    } else {
        driver("cuMemAlloc / cuMemcpyHtoD")(e)
    }
}

fn attributes_of(name: &str, f: &CudaFunction) -> Result<KernelAttributes, GpuError> {
    use CUfunction_attribute as A;
    let get = |a| {
        f.get_attribute(a)
            .map(|v| u32::try_from(v).unwrap_or(0))
            .map_err(driver("cuFuncGetAttribute"))
    };
    Ok(KernelAttributes {
        name: name.into(),
        registers_per_thread: get(A::CU_FUNC_ATTRIBUTE_NUM_REGS)?,
        static_shared_bytes: get(A::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)?,
        max_threads_per_block: get(A::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?,
        const_bytes: get(A::CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES)?,
        local_bytes_per_thread: get(A::CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES)?,
        ptx_version: get(A::CU_FUNC_ATTRIBUTE_PTX_VERSION)?,
        binary_version: get(A::CU_FUNC_ATTRIBUTE_BINARY_VERSION)?,
    })
}
