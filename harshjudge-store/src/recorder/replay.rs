//! `replay.sh`: the script in a run's folder that reruns its scenario as it ran.

use std::path::{Path, PathBuf};

use crate::store::{Store, StoreError};
use harshjudge_browser::process::binary_name;
use harshjudge_browser::settings::env;

/// Quotes `s` for a POSIX shell.
pub(crate) fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// What `replay.sh` needs to rerun a scenario exactly.
#[derive(Clone, Debug)]
pub struct ReplayInfo {
    /// `CARGO_PKG_NAME`.
    pub package: String,
    /// The package root, as resolved at run time (the harness resolves it when the binary runs).
    pub package_root: PathBuf,
    /// The `.harshJudge/` folder (absolute).
    pub store_dir: PathBuf,
    /// `HARSHJUDGE_*` settings to pin (name, value).
    pub env: Vec<(String, String)>,
}

impl ReplayInfo {
    /// The settings of this process worth pinning: the base URL only when the
    /// user gave it (a suite's own app gets a new port each time), the
    /// evidence mode and the limits.
    pub fn from_env(package: &str, package_root: &Path, store_dir: &Path) -> ReplayInfo {
        let env = [
            "HARSHJUDGE_BASE_URL",
            "HARSHJUDGE_EVIDENCE",
            "HARSHJUDGE_FULL_PAGE",
            "HARSHJUDGE_TRACE",
            "HARSHJUDGE_TRACE_SCREENSHOTS",
            "HARSHJUDGE_STEP_TIMEOUT",
            "HARSHJUDGE_TIMEOUT",
            "HARSHJUDGE_WEBDRIVER_URL",
            "HARSHJUDGE_CHROMEDRIVER",
        ]
        .iter()
        .filter_map(|k| env(k).ok().flatten().map(|v| (k.to_string(), v)))
        .collect();
        let abs = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
        ReplayInfo {
            package: package.into(),
            package_root: abs(package_root),
            store_dir: abs(store_dir),
            env,
        }
    }

    /// Writes `run_dir/replay.sh`, which reruns the scenario whose last selected
    /// step is the test `test_name` (the steps before it run too).
    pub fn write(
        &self,
        run_dir: &Path,
        slug: &str,
        run_id: &str,
        test_name: &str,
    ) -> Result<(), StoreError> {
        let exe = std::env::current_exe()
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        let mut s = String::new();
        s.push_str("#!/bin/sh\n");
        s.push_str(&format!(
            "# Reruns scenario \"{slug}\" as run {run_id} ran it: the same test binary,\n# the same exact filter, base URL and evidence mode. The new run is recorded\n# next to this one. Arguments are passed on to the test binary (e.g. --nocapture).\nset -e\ncd {}\n",
            sh_quote(&self.package_root.display().to_string())
        ));
        // The package root the run used, whatever the caller's environment says.
        s.push_str(&format!(
            "export CARGO_MANIFEST_DIR={}\n",
            sh_quote(&self.package_root.display().to_string())
        ));
        s.push_str(&format!(
            "export HARSHJUDGE_DIR={}\n",
            sh_quote(&self.store_dir.display().to_string())
        ));
        if !self.env.iter().any(|(k, _)| k == "HARSHJUDGE_BASE_URL") {
            s.push_str(
                "# No HARSHJUDGE_BASE_URL: the suite starts its own app (or reads config.yaml).\n",
            );
            s.push_str("unset HARSHJUDGE_BASE_URL\n");
        }
        for (k, v) in &self.env {
            s.push_str(&format!("export {k}={}\n", sh_quote(v)));
        }
        s.push_str(&format!(
            "bin={}\nif [ -x \"$bin\" ]; then\n  exec \"$bin\" --exact {} \"$@\"\nfi\necho \"replay.sh: $bin is gone (rebuilt or cleaned): running through cargo\" >&2\nexec cargo test -p {} --test {} -- --exact {} \"$@\"\n",
            sh_quote(&exe),
            sh_quote(test_name),
            sh_quote(&self.package),
            sh_quote(&binary_name()),
            sh_quote(test_name),
        ));
        let path = Store::replay_script(run_dir);
        Store::new(&self.store_dir).write_file(&path, s.as_bytes())?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
                .map_err(|source| StoreError::Io { path, source })?;
        }
        Ok(())
    }
}
