//! Branch path unification's hand-written twin (`plain::unified_group`, what the
//! `unification_twin!` kernels run per thread), run on the CPU: over the groups the kernel
//! gives each thread, every item gets exactly one output and it is the item's plain scalar one,
//! for group lengths that do and do not divide the items, and each group runs its items of
//! path A and of path B in item order, alternating while both last (seed 004 fig. 10).

use reconverge_device::plain::unified_group;
use reconverge_transforms::TwoPath;
use reconverge_workloads::synthetic::{PathUnification, PathUnificationDistinct};

fn check<P: TwoPath<Output = u32>>(w: &P, items: u32, n: u32) {
    let mut out = vec![None; items as usize];
    let mut first = 0;
    while first < items {
        let len = (items - first).min(n);
        let mut order = Vec::new();
        unified_group(w, first, len, |item, value| {
            assert!(out[item as usize].is_none(), "item {item} written twice");
            out[item as usize] = Some(value);
            order.push(item);
        });
        let a: Vec<u32> = order.iter().copied().filter(|&i| w.decide(i)).collect();
        let b: Vec<u32> = order.iter().copied().filter(|&i| !w.decide(i)).collect();
        assert!(a.windows(2).all(|p| p[0] < p[1]) && b.windows(2).all(|p| p[0] < p[1]));
        // Alternation: the k-th item of A comes before the k-th of B.
        for (k, (ia, ib)) in a.iter().zip(&b).enumerate() {
            let (pa, pb) = (
                order.iter().position(|x| x == ia).unwrap(),
                order.iter().position(|x| x == ib).unwrap(),
            );
            assert!(pa < pb, "group {first}: A's item {k} after B's");
        }
        first += n;
    }
    for (item, o) in out.iter().enumerate() {
        assert_eq!(*o, Some(w.run_item(item as u32)), "item {item}");
    }
}

#[test]
fn every_item_once_with_its_plain_output() {
    for n in [1, 4, 16, 64] {
        check(&PathUnificationDistinct::new(7, 3), 1000, n);
        check(&PathUnification::new(5, 9), 333, n);
    }
}
