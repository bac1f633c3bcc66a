//! Fuzzes the command-parser entry point: a shell command line through canonicalisation,
//! classification and the action hash (`assent_fuzz::check_command_line`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    assent_fuzz::check_command_line(data);
});
