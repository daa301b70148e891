//! Running the Java oracle (`conformance/oracle`, Apache Kafka 4.4.0's coordinator in-process).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::driver::OracleProcess;

/// The main class of the coordinator harness and of the assignor harness.
pub const SCRIPT_MAIN: &str = "dev.regroup.oracle.script.ScriptMain";
pub const ASSIGN_MAIN: &str = "dev.regroup.oracle.Assign";
pub const RANDOM_INPUTS_MAIN: &str = "dev.regroup.oracle.RandomInputs";
/// The generator of random consumer-group assignor inputs (both assignors, alternately).
pub const CONSUMER_RANDOM_INPUTS_MAIN: &str = "dev.regroup.oracle.ConsumerRandomInputs";
/// RE2J as Kafka's coordinator reads subscription regexes (`regroup conformance --regex`).
pub const RE2J_CHECK_MAIN: &str = "dev.regroup.oracle.Re2jCheck";

/// How to start a main class of the oracle: a command prefix to which the class name and its arguments
/// are appended (`java -cp <classes>:<jars>/*`).
#[derive(Debug, Clone)]
pub struct Oracle {
    prefix: Vec<String>,
}

/// The repository's `conformance/oracle` directory (this crate's parent), when it exists.
pub fn default_oracle_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("conformance")
        .join("oracle")
}

fn java() -> String {
    match std::env::var("JAVA_HOME") {
        Ok(home) if Path::new(&home).join("bin/java").exists() => {
            Path::new(&home).join("bin/java").display().to_string()
        }
        _ => "java".to_string(),
    }
}

impl Oracle {
    /// `--oracle-cmd`: a whitespace-separated command prefix.
    pub fn from_command(cmd: &str) -> Result<Self, String> {
        let prefix: Vec<String> = cmd.split_whitespace().map(str::to_string).collect();
        if prefix.is_empty() {
            return Err("--oracle-cmd is empty".into());
        }
        Ok(Self { prefix })
    }

    /// The oracle built by Maven in `oracle_dir` (classes in target/classes), with the Kafka jars and
    /// their dependencies from `jar_dir` (default: `oracle_dir/target/lib`, where `mvn package` copies them).
    pub fn from_build(oracle_dir: &Path, jar_dir: Option<&Path>) -> Result<Self, String> {
        let classes = oracle_dir.join("target").join("classes");
        let lib = jar_dir
            .map(Path::to_path_buf)
            .unwrap_or_else(|| oracle_dir.join("target").join("lib"));
        if !classes
            .join("dev/regroup/oracle/script/ScriptMain.class")
            .exists()
        {
            return Err(format!(
                "the oracle is not built ({} has no ScriptMain): run `mvn -f {} package -DskipTests` (needs Java 17+ and Maven), or pass --oracle-cmd",
                classes.display(),
                oracle_dir.join("pom.xml").display()
            ));
        }
        if !lib.is_dir() {
            return Err(format!(
                "no Kafka jars in {} (the directory `mvn package` fills, or --kafka-jar-dir)",
                lib.display()
            ));
        }
        let cp = format!("{}:{}/*", classes.display(), lib.display());
        Ok(Self {
            prefix: vec![java(), "-cp".into(), cp],
        })
    }

    fn command(&self, main: &str) -> Command {
        let mut c = Command::new(&self.prefix[0]);
        c.args(&self.prefix[1..]).arg(main);
        c
    }

    /// The coordinator harness in interactive mode, for generating scripts against Kafka.
    pub fn interactive(&self) -> Result<OracleProcess, String> {
        let mut cmd = self.prefix.clone();
        cmd.push(SCRIPT_MAIN.into());
        OracleProcess::start(&cmd)
    }

    /// Runs every (script, output file) pair in one JVM.
    pub fn run_scripts(
        &self,
        pairs: &[(PathBuf, PathBuf)],
        list_file: &Path,
    ) -> Result<(), String> {
        let list: String = pairs
            .iter()
            .map(|(i, o)| format!("{}\t{}\n", i.display(), o.display()))
            .collect();
        std::fs::write(list_file, list)
            .map_err(|e| format!("cannot write {}: {e}", list_file.display()))?;
        let status = self
            .command(SCRIPT_MAIN)
            .arg("--list")
            .arg(list_file)
            .stdin(Stdio::null())
            .status()
            .map_err(|e| format!("cannot start the oracle ({}): {e}", self.prefix[0]))?;
        if !status.success() {
            return Err(format!("the oracle failed: {status}"));
        }
        Ok(())
    }

    /// Starts a main class with `args`, its standard input and output piped to the caller.
    pub fn spawn(&self, main: &str, args: &[&str]) -> Result<std::process::Child, String> {
        self.command(main)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| format!("cannot start the oracle ({}): {e}", self.prefix[0]))
    }

    /// Runs a main class with `args`, returning its standard output (exit statuses in `ok_codes` accepted).
    pub fn output(&self, main: &str, args: &[String], ok_codes: &[i32]) -> Result<String, String> {
        let out = self
            .command(main)
            .args(args)
            .stdin(Stdio::null())
            .stderr(Stdio::inherit())
            .output()
            .map_err(|e| format!("cannot start the oracle ({}): {e}", self.prefix[0]))?;
        let code = out.status.code().unwrap_or(-1);
        if !ok_codes.contains(&code) {
            return Err(format!("{main} exited with {}", out.status));
        }
        String::from_utf8(out.stdout).map_err(|e| format!("{main}: output is not UTF-8: {e}"))
    }
}
