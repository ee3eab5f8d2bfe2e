//! Work in progress.
#![no_std]

pub mod mcml;
pub mod rng;
pub mod synthetic;
