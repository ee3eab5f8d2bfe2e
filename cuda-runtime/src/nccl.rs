//! Sums across the GPUs of one machine with NCCL (through cudarc's bindings), for runs split
//! over several devices: each GPU's integer accumulators are all-reduced (`ncclUint64`,
//! `ncclSum`), so the sum is exact and the same for any split.

use cudarc::nccl::safe::{Comm, ReduceOp};

use crate::{GpuContext, GpuError};

fn nccl(operation: &'static str) -> impl Fn(cudarc::nccl::result::NcclError) -> GpuError {
    move |e| GpuError::Driver {
        operation,
        code: format!("{:?}", e.0),
        message: "NCCL".into(),
    }
}

/// NCCL communicators over a set of GPUs, ready to sum `u64` arrays across them.
///
/// Setting NCCL up (`ncclCommInitAll`) takes about a second; building this while the GPUs
/// compute (on the thread that will reduce: a communicator stays on its thread) hides that.
pub struct NcclSum {
    comms: Vec<Comm>,
}

impl NcclSum {
    /// Communicators over `contexts`, in that order.
    ///
    /// # Errors
    /// [`GpuError::Driver`] where `libnccl` cannot be loaded (put its folder on
    /// `LD_LIBRARY_PATH`: the `nvidia-nccl-cu13` Python package ships it) or NCCL fails.
    pub fn new(contexts: &[&GpuContext]) -> Result<Self, GpuError> {
        // SAFETY: only tries to open the library by its usual names; no NCCL call is made.
        if !unsafe { cudarc::nccl::sys::is_culib_present() } {
            return Err(GpuError::Driver {
                operation: "loading libnccl",
                code: "not found".into(),
                message: "put the folder of libnccl.so.2 on LD_LIBRARY_PATH".into(),
            });
        }
        let streams = contexts.iter().map(|c| c.stream().clone()).collect();
        let comms = Comm::from_devices(streams).map_err(nccl("ncclCommInitAll"))?;
        Ok(Self { comms })
    }

    /// The element-wise sum of `parts` (one `u64` array per GPU, all of one length), by NCCL's
    /// all-reduce: `parts[k]` is uploaded to `contexts[k]` (the contexts given to
    /// [`NcclSum::new`], in its order); the sum is read back from the first GPU.
    ///
    /// # Errors
    /// [`GpuError::Driver`] for a count or lengths that do not match, and for a CUDA or NCCL
    /// error.
    pub fn sum(&self, contexts: &[&GpuContext], parts: &[&[u64]]) -> Result<Vec<u64>, GpuError> {
        let len = parts.first().map_or(0, |p| p.len());
        if contexts.len() != self.comms.len()
            || parts.len() != self.comms.len()
            || parts.iter().any(|p| p.len() != len)
        {
            return Err(GpuError::Driver {
                operation: "NcclSum::sum",
                code: "invalid arguments".into(),
                message: format!(
                    "{} communicators, {} GPUs, {} arrays (all of one length)",
                    self.comms.len(),
                    contexts.len(),
                    parts.len()
                ),
            });
        }
        let mut buffers = Vec::with_capacity(parts.len());
        for (ctx, part) in contexts.iter().zip(parts) {
            buffers.push(ctx.upload(part, "tally to reduce")?);
        }
        // One group: NCCL runs the all-reduce on every GPU together (one thread drives them).
        cudarc::nccl::result::group_start().map_err(nccl("ncclGroupStart"))?;
        for (comm, buffer) in self.comms.iter().zip(buffers.iter_mut()) {
            comm.all_reduce_in_place(buffer, &ReduceOp::Sum)
                .map_err(nccl("ncclAllReduce"))?;
        }
        cudarc::nccl::result::group_end().map_err(nccl("ncclGroupEnd"))?;
        contexts[0].download(&buffers[0])
    }
}
