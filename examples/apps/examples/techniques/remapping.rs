//! Thread-data remapping (Zhang et al., G-Streamline, ASPLOS 2011) on its workload
//! (`ClassChains`): items of two classes, each running its own long chain (a float chain or
//! an integer chain, 16 rounds) for every one of `--iterations` iterations, the classes
//! interleaved at random (`classes-interleaved`, favourable), in runs of 32
//! (`classes-grouped`) or the key unrelated to the paths (`classes-unpredictable`), both
//! unfavourable. Every strategy of `CLASS_CHAINS_STRATEGIES` at its default launch beside the
//! plain kernels (`classes_*`), written to `DIR/<setting>.tsv`;
//! `references/cuda/thread_data_remapping.cu` is the hand-written twin (it checks its outputs
//! against its own scalar loop, the Rust `reference` line for line).

use rayon::prelude::*;
use reconverge_transforms::BranchLoopKernel;
use reconverge_workloads::synthetic::ClassChains;

use super::{Args, Error, compare};

/// Rounds of each chain per iteration: long paths, where regrouping pays.
const ROUNDS: u32 = 16;

#[cfg(feature = "cuda")]
type Gpu = Option<reconverge_gpu::CudaBackend>;
#[cfg(not(feature = "cuda"))]
type Gpu = super::NoGpu;

pub fn run(args: &Args, gpu: &Gpu) -> Result<(), Error> {
    for (name, w) in [
        (
            "classes-interleaved",
            ClassChains::interleaved(args.iterations, ROUNDS),
        ),
        (
            "classes-grouped",
            ClassChains::grouped(args.iterations, ROUNDS),
        ),
        (
            "classes-unpredictable",
            ClassChains::unpredictable(args.iterations, ROUNDS),
        ),
    ] {
        if name.contains(&args.only) {
            let outputs: Vec<u32> = (0..args.items)
                .into_par_iter()
                .map(|i| w.reference(i))
                .collect();
            compare(args, gpu, name, &BranchLoopKernel(w), "classes", &outputs)?;
        }
    }
    Ok(())
}
