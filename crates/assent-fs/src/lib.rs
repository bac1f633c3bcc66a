//! File helpers shared by the service, the desk and the CLI, with no dependency on any of them
//! (the desk writes its settings without reaching into the service for it).

pub mod atomic_file;
