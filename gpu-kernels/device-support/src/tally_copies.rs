//! The device half of tally copies: the CUDA backend has blocks add to several copies of a
//! workload's tally (atomics to one hot address serialise in the L2), and this kernel adds the
//! copies up on the GPU, so that one copy, not all of them, crosses to the host. Integer sums
//! wrap the same way in any order: the result is the same bit for bit as the host's sum.

/// The kernel's name. Every PTX module built with `reconverge-gpu-build` keeps it when its
/// device code links this crate; the CUDA backend adds the copies on the host in a module
/// without it.
pub const ADD_UP_TALLY_COPIES: &str = "reconverge_add_up_tally_copies";

/// Adds copies `1..copies` of the `len`-long tally at `tally` into copy 0 (wrapping), one
/// accumulator per thread in a grid-stride loop.
///
/// # Safety
/// `tally` holds `copies * len` `u64`s of device memory that nothing else touches during the
/// launch.
#[cfg(target_arch = "nvptx64")]
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn reconverge_add_up_tally_copies(
    tally: *mut u64,
    len: u32,
    copies: u32,
) {
    let (mut i, threads) = crate::plain::thread_and_threads();
    while i < len {
        // SAFETY: `i < len` and `c < copies`: inside the `copies * len` accumulators.
        unsafe {
            let mut sum = *tally.add(i as usize);
            let mut c = 1u32;
            while c < copies {
                sum = sum.wrapping_add(*tally.add(c as usize * len as usize + i as usize));
                c += 1;
            }
            *tally.add(i as usize) = sum;
        }
        i = match i.checked_add(threads) {
            Some(next) => next,
            None => break,
        };
    }
}
