//! Compile tests of `#[scenario]`: what expands and runs, and the compile errors.
//! Regenerate the expected errors with
//! `TRYBUILD=overwrite cargo test -p harshjudge-macros --test ui`, then read them.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.pass("tests/ui/pass/*.rs");
    t.compile_fail("tests/ui/fail/*.rs");
}
