//! MCML kills a photon that moves parallel to the faces of a glass layer (`uz == 0`): it would
//! cross the layer forever. The step that finds it reaches the face (every glass step does),
//! and the photon is dead when that step ends, whatever its path, with nothing tallied.

use reconverge_workloads::mcml::{
    GridSpec, LayerConstants, LayerSpec, McmlFloat, McmlParams, SliceTally, StepView, boundary,
    boundary_distributed, launch, prepare_step,
};

fn stuck_photon_dies<F: McmlFloat>(distributed: bool) {
    let tissue = LayerSpec {
        n: 1.4,
        mua: 1.0,
        mus: 10.0,
        g: 0.9,
        d: 0.1,
    };
    let glass = LayerSpec {
        n: 1.5,
        mua: 0.0,
        mus: 0.0,
        g: 0.0,
        d: 0.05,
    };
    let grid = GridSpec {
        dz: 0.01,
        dr: 0.01,
        nz: 30,
        nr: 10,
        na: 5,
    };
    let params = McmlParams::<F>::new(1.0, &[tissue, glass, tissue], 1.0, grid).expect("valid");
    let view = StepView::new(&params);
    let mut photon = launch(&params, 1, 0);
    // In the glass layer (2), halfway down, moving along x.
    photon.layer = 2;
    photon.here = LayerConstants::of(params.layer(2));
    photon.z = F::lit(0.125);
    (photon.ux, photon.uy, photon.uz) = (F::one(), F::zero(), F::zero());
    let w = photon.w;
    let mut counts = vec![0u64; params.layout().len()];
    let mut tally = SliceTally {
        layout: params.layout(),
        data: &mut counts,
    };
    assert!(prepare_step(&mut photon), "a glass step reaches a face");
    if distributed {
        boundary_distributed(&view, &mut photon, &mut tally);
    } else {
        boundary(&view, &mut photon, &mut tally);
    }
    assert!(photon.dead, "killed at its first step");
    assert_eq!(photon.w, w, "its weight is not moved anywhere");
    assert!(counts.iter().all(|&c| c == 0), "nothing tallied");
}

#[test]
fn a_glass_photon_parallel_to_the_faces_dies_at_its_next_step() {
    stuck_photon_dies::<f32>(false);
    stuck_photon_dies::<f32>(true);
    stuck_photon_dies::<f64>(false);
    stuck_photon_dies::<f64>(true);
}
