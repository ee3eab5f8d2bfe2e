//! The SASS reader on what CUDA's tools make, where they are installed: a PTX module with one
//! loop, through `ptxas` and `cuobjdump` (`ptx_sass`), read by `loop_nesting`. Where either
//! tool is missing (CI has neither) the answer must be the typed "not installed" error, which
//! the advisor turns into its default loops, never a panic.
//!
//! Locally: `CUOBJDUMP=.../cuobjdump RECONVERGE_PTXAS=.../ptxas cargo test -p
//! reconverge-gpu-build --test sass_tools`.

use reconverge_gpu_build::{SassError, loop_nesting, ptx_sass};

/// One entry point, one loop (an LCG over `n` steps), its result stored so the loop stays.
const PTX: &str = "
.version 8.0
.target sm_90
.address_size 64

.visible .entry count_down(
	.param .u64 out,
	.param .u32 n
)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<4>;
	.reg .b64 	%rd<3>;

	ld.param.u64 	%rd1, [out];
	ld.param.u32 	%r1, [n];
	mov.u32 	%r2, 0;
LOOP:
	setp.eq.u32 	%p1, %r1, 0;
	@%p1 bra 	DONE;
	mul.lo.u32 	%r3, %r2, 1664525;
	add.u32 	%r2, %r3, %r1;
	sub.u32 	%r1, %r1, 1;
	bra.uni 	LOOP;
DONE:
	cvta.to.global.u64 	%rd2, %rd1;
	st.global.u32 	[%rd2], %r2;
	ret;
}
";

#[test]
fn a_compiled_loop_is_read_where_the_tools_are_installed_and_a_typed_error_where_not() {
    match ptx_sass(PTX, "sm_90") {
        Ok(sass) => {
            let read = loop_nesting(&sass);
            assert_eq!(read.len(), 1, "{sass}");
            assert_eq!(read[0].function, "count_down");
            // At least the loop (ptxas may unroll it into more than one); a single loop
            // level, so no barrier nests one in another: flat.
            assert!(read[0].loops >= 1, "{sass}");
            assert!(!read[0].reconverges_per_item, "{sass}");
        }
        Err(SassError::NoCuobjdump(e)) => println!("no cuobjdump here: {e}"),
        Err(SassError::NoPtxas { source, .. }) => println!("no ptxas here: {source}"),
        Err(e) => panic!("the tools are installed but failed: {e}"),
    }
}
