//! Energy conservation and bitwise reproducibility across thread counts and runs.

use reconverge_mcml::builtin::{builtin, giovanelli, skin, slab};
use reconverge_mcml::{RunInput, run, run_with};
use reconverge_workloads::mcml::{FIXED_ONE, LayerSpec};

/// Bound on `|Rsp + Rd + A + Tt + roulette loss − gain − 1|`: each tally add rounds to the
/// nearest 2^-32 of a packet (unbiased), and f64 weight updates round at 1e-16; a few thousand
/// adds per photon stay far below this.
const BALANCE_TOL: f64 = 1e-9;

fn check_energy(input: &RunInput, photons: u64) {
    let r = run(input, photons, 7).unwrap();
    let balance = r.energy_balance();
    eprintln!(
        "{}: Rsp {:.6} Rd {:.6} A {:.6} Tt {:.6} sum {:.9} gain {:.3e} loss {:.3e} balance-1 {:.3e}",
        input.output_file,
        r.rsp,
        r.rd,
        r.a,
        r.tt,
        r.total(),
        r.roulette_gain,
        r.roulette_loss,
        balance - 1.0
    );
    assert!(
        (balance - 1.0).abs() < BALANCE_TOL,
        "{}: balance {balance}",
        input.output_file
    );
    // Roulette conserves energy only on average: its net effect is tiny per photon.
    assert!(
        (r.total() - 1.0).abs() < 1e-3,
        "{}: total {}",
        input.output_file,
        r.total()
    );
}

#[test]
fn energy_is_conserved_by_every_builtin() {
    for name in ["skin", "slab", "vandehulst", "giovanelli"] {
        check_energy(&builtin(name).unwrap(), 5_000);
    }
}

#[test]
fn energy_is_conserved_with_glass_layers() {
    let mut input = skin();
    // Glass on top (specular includes its multiple reflections) and glass at the bottom.
    input.layers.insert(
        0,
        LayerSpec {
            n: 1.5,
            mua: 0.0,
            mus: 0.0,
            g: 0.0,
            d: 0.1,
        },
    );
    input.layers.push(LayerSpec {
        n: 1.5,
        mua: 0.0,
        mus: 0.0,
        g: 0.0,
        d: 0.1,
    });
    let r = run(&input, 10, 1).unwrap();
    let r1: f64 = (0.5f64 / 2.5).powi(2);
    let r2: f64 = ((1.5f64 - 1.53) / 3.03).powi(2);
    let expected = r1 + (1.0 - r1) * (1.0 - r1) * r2 / (1.0 - r1 * r2);
    assert!((r.rsp - expected).abs() < 1e-15, "{} vs {expected}", r.rsp);
    check_energy(&input, 3_000);
    // A lone glass layer: only the first face is specular, the rest is simulated.
    let mut glass = giovanelli();
    glass.layers = vec![LayerSpec {
        n: 1.5,
        mua: 0.0,
        mus: 0.0,
        g: 0.0,
        d: 1.0,
    }];
    let r = run(&glass, 2_000, 3).unwrap();
    assert!((r.rsp - 0.04).abs() < 1e-15);
    // Normal incidence: reflected at each face with R = 0.04, all-or-none.
    let slab_t = (1.0 - 0.04) * (1.0 - 0.04) / (1.0 - 0.04 * 0.04) / (1.0 - 0.04);
    assert!((r.tt - slab_t * 0.96).abs() < 0.01, "Tt {}", r.tt);
    check_energy(&glass, 2_000);
}

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
}

#[test]
fn identical_for_any_thread_count() {
    for input in [skin(), slab()] {
        // Not a multiple of the chunk size, so the last chunk is partial.
        let photons = 3 * 1024 + 123;
        let one = pool(1).install(|| run(&input, photons, 42).unwrap());
        let two = pool(2).install(|| run(&input, photons, 42).unwrap());
        let three = pool(3).install(|| run(&input, photons, 42).unwrap());
        assert_eq!(one.tally, two.tally, "{}", input.output_file);
        assert_eq!(one.tally, three.tally, "{}", input.output_file);
        assert_eq!(one.rd.to_bits(), two.rd.to_bits());
        assert_eq!(one.a.to_bits(), two.a.to_bits());
        assert_eq!(one.tt.to_bits(), two.tt.to_bits());
        // A different seed gives different photons.
        let other = run(&input, photons, 43).unwrap();
        assert_ne!(one.tally, other.tally);
    }
}

#[test]
fn photon_streams_do_not_depend_on_the_run_size() {
    // Photon i's life depends on (seed, i) only: the first 1000 photons of a 2048-photon run
    // are those of a 1000-photon run, so tallies of the larger run dominate bin by bin.
    let input = slab();
    let small = run(&input, 1000, 5).unwrap();
    let large = run(&input, 2048, 5).unwrap();
    assert!(small.tally.iter().zip(&large.tally).all(|(s, l)| s <= l));
}

#[test]
fn f32_physics_agrees_statistically() {
    let input = skin();
    let a = run_with::<f32>(&input, 20_000, 9, None).unwrap();
    let b = run(&input, 20_000, 9).unwrap();
    eprintln!("f32 Rd {} A {}, f64 Rd {} A {}", a.rd, a.a, b.rd, b.a);
    assert!((a.rd - b.rd).abs() < 0.02);
    assert!((a.a - b.a).abs() < 0.02);
    assert!(
        (a.energy_balance() - 1.0).abs() < 1e-5,
        "{}",
        a.energy_balance()
    );
    let raw: u128 = a.tally.iter().map(|&v| u128::from(v)).sum();
    assert!(raw > 0 && raw < 2 * 20_000 * u128::from(FIXED_ONE));
}

/// The photon's absorption cache: drops into one `A_rz` bin reach the tally as one sum, flushed
/// when the photon moves to another bin or dies, so a photon never sends two non-zero sums in
/// a row to the same bin, and fewer sums than drops reach the tally (on the GPU each sum is
/// a global atomic).
#[test]
fn absorption_reaches_the_tally_once_per_bin_visit() {
    use reconverge_workloads::mcml::{Tally, TallyBin, simulate_photon};

    #[derive(Default)]
    struct Visits {
        drops: u64,
        sums: Vec<(u32, u32)>,
    }
    impl Tally for Visits {
        fn add(&mut self, bin: TallyBin, amount: u64) {
            if let TallyBin::Absorbed { ir, iz } = bin {
                self.drops += 1;
                if amount != 0 {
                    self.sums.push((ir, iz));
                }
            }
        }
    }

    let params = skin().params::<f32>().expect("valid input");
    let (mut drops, mut sums) = (0u64, 0u64);
    for photon in 0..200 {
        let mut v = Visits::default();
        simulate_photon(&params, 3, photon, &mut v);
        assert!(
            v.sums.windows(2).all(|w| w[0] != w[1]),
            "photon {photon}: two sums in a row to one bin"
        );
        drops += v.drops;
        sums += v.sums.len() as u64;
    }
    eprintln!("{drops} drops, {sums} sums into A_rz");
    // Skin (dz = 20 µm): about a third of the drops land in the bin of the drop before.
    assert!(
        sums > 0 && sums * 4 < drops * 3,
        "{sums} sums for {drops} drops"
    );
}
