//! The host side of the CUDA backend (feature `runtime`): context, module, kernel attributes,
//! buffers and timed launches.

use std::sync::Arc;

use cudarc::driver::sys::{CUevent_flags, CUfunction_attribute, CUresult};
use cudarc::driver::{
    CudaContext, CudaFunction, CudaModule, CudaSlice, CudaStream, DeviceRepr, DriverError,
    LaunchConfig, PushKernelArg, ValidAsZeroBits,
};

use crate::error::{GpuError, LaunchShape};

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

/// A CUDA context on one device with one module (PTX or cubin) loaded.
#[derive(Debug)]
pub struct GpuContext {
    // Kept alive for the stream, module and functions, which refer to it.
    context: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    _module: Arc<CudaModule>,
    kernels: Vec<(KernelAttributes, CudaFunction)>,
    /// `reconverge-device`'s kernel that adds tally copies up, where the module has it.
    add_up_tally_copies: Option<CudaFunction>,
    device: DeviceInfo,
}

/// What [`GpuContext::load`] loads.
enum Module<'a> {
    /// PTX text, compiled by the driver's JIT.
    Ptx(&'a str),
    /// A cubin image from `ptxas`.
    Cubin(Vec<u8>),
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

    /// Opens device `ordinal` and loads a cubin image (what `ptxas -arch=sm_XX` makes from a
    /// PTX module for this GPU, which saves the driver's JIT compilation), looking up `kernels`
    /// in it.
    ///
    /// # Errors
    /// As [`GpuContext::with_ptx`].
    pub fn with_cubin(ordinal: usize, image: Vec<u8>, kernels: &[&str]) -> Result<Self, GpuError> {
        Self::load(ordinal, Module::Cubin(image), kernels)
    }

    /// Opens device `ordinal` and loads `ptx`, looking up `kernels` in it.
    ///
    /// # Errors
    /// [`GpuError::NoDriver`] where `libcuda` cannot be loaded (checked before any driver call,
    /// which would otherwise panic inside cudarc), [`GpuError::NoDevice`], a driver or
    /// module-load error, or [`GpuError::MissingKernel`] if the module lacks a kernel.
    pub fn with_ptx(ordinal: usize, ptx: &str, kernels: &[&str]) -> Result<Self, GpuError> {
        if ptx.contains('\0') {
            return Err(GpuError::ModuleLoad {
                code: "invalid PTX".into(),
                message: "the PTX text contains a NUL byte".into(),
            });
        }
        Self::load(ordinal, Module::Ptx(ptx), kernels)
    }

    fn load(ordinal: usize, module: Module<'_>, kernels: &[&str]) -> Result<Self, GpuError> {
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
        let module = context
            .load_module(match module {
                Module::Ptx(ptx) => cudarc::nvrtc::Ptx::from_src(ptx),
                Module::Cubin(image) => cudarc::nvrtc::Ptx::from_binary(image),
            })
            .map_err(|e| {
                let (code, message) = describe(&e);
                GpuError::ModuleLoad { code, message }
            })?;
        let mut loaded = Vec::with_capacity(kernels.len());
        for &name in kernels {
            if name.contains('\0') {
                return Err(GpuError::MissingKernel {
                    kernel: name.into(),
                });
            }
            let function = module
                .load_function(name)
                .map_err(|_| GpuError::MissingKernel {
                    kernel: name.into(),
                })?;
            loaded.push((attributes_of(name, &function)?, function));
        }
        // Optional: modules built without `reconverge-device` lack it.
        let add_up_tally_copies = module
            .load_function(reconverge_device::tally_copies::ADD_UP_TALLY_COPIES)
            .ok();
        let stream = context.default_stream();
        Ok(Self {
            context,
            stream,
            _module: module,
            kernels: loaded,
            add_up_tally_copies,
            device,
        })
    }

    /// The device.
    pub fn device(&self) -> &DeviceInfo {
        &self.device
    }

    /// The attributes of every loaded kernel.
    pub fn kernels(&self) -> impl Iterator<Item = &KernelAttributes> {
        self.kernels.iter().map(|(a, _)| a)
    }

    /// The attributes of kernel `name`.
    ///
    /// # Errors
    /// [`GpuError::MissingKernel`] if it was not loaded.
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
        let (_, f) = self.function(name)?;
        f.occupancy_max_active_blocks_per_multiprocessor(threads_per_block, 0, None)
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
        let blocks = self.max_active_blocks(name, threads_per_block)?;
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
        self.kernels
            .iter()
            .find(|(a, _)| a.name == name)
            .ok_or_else(|| GpuError::MissingKernel {
                kernel: name.into(),
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
        let Some(function) = &self.add_up_tally_copies else {
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
