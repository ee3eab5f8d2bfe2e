//! Every page the reproduce tool writes, registered in one list ([`EXPERIMENTS`]): the run,
//! `--list`, `--only` and the results index all read it.

use std::fmt;

use super::{Ctx, Page, Scale, Setting, gems34, seed001, seed002, seed004};

/// The seed papers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Paper {
    /// Seed 001: Carrillo, Siegel & Li (2009), branch and loop splitting on G80.
    CarrilloSiegelLi,
    /// Seed 002: Han & Abdelrahman (GPGPU-4, 2011), iteration delaying and branch
    /// distribution.
    HanAbdelrahman,
    /// Seed 004: Kato, Suda & Tamada, dynamic work assignment and branch path unification.
    KatoSudaTamada,
    /// GPU Gems 2 ch. 34 (seed 003): Harris & Buck, GPU flow-control idioms.
    Gems2Ch34,
}

impl fmt::Display for Paper {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::CarrilloSiegelLi => "Carrillo, Siegel & Li (2009)",
            Self::HanAbdelrahman => "Han & Abdelrahman (GPGPU-4, 2011)",
            Self::KatoSudaTamada => "Kato, Suda & Tamada",
            Self::Gems2Ch34 => "Harris & Buck, GPU Gems 2 ch. 34",
        })
    }
}

/// One experiment: the pages it writes (one run can write two) and how.
pub struct Experiment {
    /// Page names (file stems), in the order they are written.
    pub pages: &'static [&'static str],
    /// The paper it reproduces.
    pub paper: Paper,
    /// Runs the experiment and builds its pages.
    pub build: fn(&Ctx) -> Vec<Page>,
    /// Its settings at a scale: what `build` measures, as data.
    pub settings: fn(&Scale) -> Vec<Setting>,
    /// The plain kernels its timed pages state every strategy against (issue 40): prefixes of
    /// the paper kernels' `PLAIN_KERNELS` (`reconverge_paper_kernels`), the paper's workload
    /// first, then its real-divergence variant's where the page runs one. Empty where the
    /// workload has none (MCML).
    pub plain: &'static [&'static str],
}

/// Every experiment, in the order of the results index.
pub const EXPERIMENTS: &[Experiment] = &[
    seed001::FIG08,
    seed001::FIG10,
    seed001::FIG05,
    seed002::FIG10,
    seed002::FIG11,
    seed002::TABLE1,
    seed002::FIG12,
    seed002::MCML,
    seed004::TABLE1_FIG12,
    seed004::TABLES2_4_FIG14,
    gems34::FIG34_1_2,
    gems34::SECTION34_3,
];

/// Every page name, in order.
pub fn pages() -> impl Iterator<Item = &'static str> {
    EXPERIMENTS.iter().flat_map(|e| e.pages.iter().copied())
}

/// A `--only` name that no page name contains.
#[derive(Debug, thiserror::Error)]
#[error("no page named like {name:?}; the pages are: {}", known.join(", "))]
pub struct UnknownPage {
    /// The name asked for.
    pub name: String,
    /// Every page name.
    pub known: Vec<&'static str>,
}

/// The experiments with a page whose name contains one of `only` (all for an empty `only`).
/// Every name must match a page: a typo is an error, not an empty run.
pub fn select(only: &[String]) -> Result<Vec<&'static Experiment>, UnknownPage> {
    if let Some(name) = only
        .iter()
        .find(|o| !pages().any(|p| p.contains(o.as_str())))
    {
        return Err(UnknownPage {
            name: name.clone(),
            known: pages().collect(),
        });
    }
    Ok(EXPERIMENTS
        .iter()
        .filter(|e| {
            only.is_empty()
                || e.pages
                    .iter()
                    .any(|p| only.iter().any(|o| p.contains(o.as_str())))
        })
        .collect())
}
