//! The ADB wire protocol's command words and versions, shared by our client
//! (`device::transport`) and the virtual device's adbd (`sim::adb`) so both sides
//! speak from one definition. Framing and limits belong to each side.

pub const A_CNXN: u32 = 0x4e58_4e43;
pub const A_AUTH: u32 = 0x4854_5541;
pub const A_OPEN: u32 = 0x4e45_504f;
pub const A_OKAY: u32 = 0x5941_4b4f;
pub const A_CLSE: u32 = 0x4553_4c43;
pub const A_WRTE: u32 = 0x4554_5257;
pub const A_STLS: u32 = 0x534c_5453;

/// The oldest protocol version (payload checksums required).
pub const A_VERSION_MIN: u32 = 0x0100_0000;
/// The newest version (checksums optional).
pub const A_VERSION: u32 = 0x0100_0001;
