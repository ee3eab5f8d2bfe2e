//! [`DeviceData`]: what a workload must be for the CUDA backend to copy it to the GPU byte for
//! byte, said where the compiler can check it. `reconverge::gpu_entry_points!` asks every
//! workload of a user's list for it, so a workload that is not declared as GPU data (a struct
//! whose `#[repr(C)]` was dropped, say) is an error at the list, not wrong numbers on a GPU.

/// Plain data with one layout on the host and the GPU: the CUDA backend copies it to device
/// memory byte for byte and the kernel reads it there.
///
/// Declare a struct with [`device_data!`](crate::device_data), which writes `#[repr(C)]` and
/// this impl together, so the two cannot come apart.
///
/// # Safety
/// The type is `#[repr(C)]` or `#[repr(transparent)]` (or a primitive), all its fields are
/// `DeviceData`, it holds no pointer or reference (a host address means nothing on the GPU), and
/// every bit pattern the host can write is one the device code accepts.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not declared as GPU data (`DeviceData`)",
    label = "the CUDA backend copies this workload to the GPU byte for byte",
    note = "declare it with `reconverge::device_data! {{ pub struct ... }}` (which makes it `#[repr(C)]`), or, for a `#[repr(C)]` type of plain data, `unsafe impl reconverge::device::DeviceData for ... {{}}`"
)]
pub unsafe trait DeviceData: Copy + 'static {}

macro_rules! primitives {
    ($($t:ty),*) => { $(
        // SAFETY: a primitive of one layout on every target reconverge builds for.
        unsafe impl DeviceData for $t {}
    )* };
}
primitives!(u8, u16, u32, u64, i8, i16, i32, i64, f32, f64);

// SAFETY: an array of `DeviceData` is laid out element after element on every target.
unsafe impl<T: DeviceData, const N: usize> DeviceData for [T; N] {}

/// Declares a struct as GPU data: writes it with `#[repr(C)]` and implements [`DeviceData`]
/// for it, so that an entry-point list accepts it. Braced, tuple and unit structs without
/// generic parameters; attributes and doc comments go through. Every field must be
/// `DeviceData` itself (checked).
///
/// ```
/// reconverge_device::device_data! {
///     /// A walk's parameters.
///     #[derive(Clone, Copy, Debug)]
///     pub struct Walk {
///         pub max_steps: u32,
///         pub seed: u64,
///     }
/// }
/// fn takes<T: reconverge_device::DeviceData>() {}
/// takes::<Walk>();
///
/// reconverge_device::device_data! {
///     #[derive(Clone, Copy)]
///     pub struct Pair(pub f32, pub [u32; 2]);
/// }
/// takes::<Pair>();
/// ```
///
/// A field that is not GPU data (a pointer means nothing on the other side) does not compile:
///
/// ```compile_fail,E0277
/// reconverge_device::device_data! {
///     #[derive(Clone, Copy)]
///     pub struct Holder { pub data: *const u32 }
/// }
/// ```
#[macro_export]
macro_rules! device_data {
    ($(#[$meta:meta])* $vis:vis struct $name:ident { $($(#[$fmeta:meta])* $fvis:vis $field:ident : $ty:ty),* $(,)? }) => {
        $(#[$meta])*
        #[repr(C)]
        $vis struct $name { $($(#[$fmeta])* $fvis $field: $ty),* }
        // SAFETY: `#[repr(C)]` just above, and every field is `DeviceData` (checked below).
        unsafe impl $crate::DeviceData for $name {}
        const _: () = {
            fn fields_are_device_data<T: $crate::DeviceData>() {}
            let _ = [$(fields_are_device_data::<$ty> as fn()),*];
        };
    };
    ($(#[$meta:meta])* $vis:vis struct $name:ident ( $($(#[$fmeta:meta])* $fvis:vis $ty:ty),* $(,)? );) => {
        $(#[$meta])*
        #[repr(C)]
        $vis struct $name ( $($(#[$fmeta])* $fvis $ty),* );
        // SAFETY: as for braced structs.
        unsafe impl $crate::DeviceData for $name {}
        const _: () = {
            fn fields_are_device_data<T: $crate::DeviceData>() {}
            let _ = [$(fields_are_device_data::<$ty> as fn()),*];
        };
    };
    ($(#[$meta:meta])* $vis:vis struct $name:ident;) => {
        $(#[$meta])*
        #[repr(C)]
        $vis struct $name;
        // SAFETY: a unit struct has no bytes.
        unsafe impl $crate::DeviceData for $name {}
    };
}
