//! The `casebook` command: parses arguments, calls the library, prints the outcome once and
//! maps it to an exit code (0 success, 1 content or build errors, 2 usage errors).

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use clap::{Args, Parser, Subcommand};

use casebook::{BuildOptions, Error};

#[path = "main/copies.rs"]
mod copies;
use copies::{package, verify};
#[path = "main/serve_command.rs"]
mod serve_command;
use serve_command::serve;

// Rendering allocates many short-lived strings on every thread; mimalloc handles that
// pattern far better than the system allocator.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(
    name = "casebook",
    version,
    about = "Static archive site generator for evidence archives"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Build the site into DIR/public (or --output).
    Build {
        #[command(flatten)]
        site: SiteArgs,
        /// Write the site here instead of <root>/public.
        #[arg(long, short, value_name = "DIR")]
        output: Option<PathBuf>,
        /// Override base_url from casebook.toml (e.g. for a staging host).
        #[arg(long, value_name = "URL")]
        base_url: Option<String>,
        /// Links name index.html so the site works opened straight from disk.
        #[arg(long)]
        portable: bool,
        /// Publish each case's Merkle proof although the build is not signed (a signed
        /// build always does).
        #[arg(long)]
        proofs: bool,
        #[command(flatten)]
        sign: SignArgs,
        /// Only derive part I of N of the photographs into the image cache, for a CI job
        /// matrix (e.g. 2/4); writes no site and reads no signing key. A build over the
        /// merged caches of all N parts then derives nothing.
        #[arg(long, value_name = "I/N", conflicts_with_all = ["output", "base_url", "portable", "proofs"])]
        shard: Option<casebook::Shard>,
    },
    /// Make a key pair for signing releases: DIR/casebook.key (secret) and DIR/casebook.pub.
    Keygen {
        /// A folder outside every site folder and repository.
        dir: PathBuf,
        /// Leave the secret key without a password (for CI secrets stores). Not recommended.
        #[arg(long)]
        unencrypted: bool,
    },
    /// Validate everything, check internal links and audit images and the built output; writes nothing.
    Check {
        #[command(flatten)]
        site: SiteArgs,
        /// List each photograph not reviewed, with its page, line and the `covers` a review
        /// of it as it is now would hold.
        #[arg(long, short)]
        verbose: bool,
    },
    /// Check a built, downloaded or mirrored copy: signature, Merkle root, then every file.
    Verify {
        /// The copy: a folder (holding manifest.json) or an http(s):// address.
        #[arg(default_value = "public", value_name = "DIR|URL")]
        target: String,
        /// The publisher's public key (the base64 line, RW...), from a source you trust.
        #[arg(long, value_name = "KEY", conflicts_with = "pubkey_file")]
        pubkey: Option<String>,
        /// The publisher's public key file (casebook.pub, or .well-known/casebook.pub of a copy you trust).
        #[arg(long, value_name = "FILE")]
        pubkey_file: Option<PathBuf>,
        /// Check one case and its photographs through its Merkle proof only.
        #[arg(long, value_name = "ID")]
        case: Option<String>,
        /// The root certificate of a time-stamp authority whose tokens you trust (repeatable;
        /// PEM or DER). Without one, the anchors of `[signing] tsa_certs` in ./casebook.toml.
        #[arg(long = "tsa-cert", value_name = "FILE")]
        tsa_cert: Vec<PathBuf>,
        /// Check only that every fill redaction is solid in the published pixels.
        #[arg(long, conflicts_with_all = ["pubkey", "pubkey_file", "case", "tsa_cert"])]
        redactions: bool,
    },
    /// Build the site in memory, serve it on this machine and rebuild and reload on every change.
    Serve {
        /// The site folder (holding casebook.toml).
        #[arg(long, default_value = ".", value_name = "DIR")]
        root: PathBuf,
        /// The port to listen on (0: any free port).
        #[arg(long, short, default_value_t = 1111)]
        port: u16,
        /// The address to listen on. Anything but loopback shows unpublished content to the network.
        #[arg(long, default_value = "127.0.0.1", value_name = "ADDRESS")]
        bind: std::net::IpAddr,
        /// Also answer to this name (repeatable). Only this machine's names (localhost,
        /// 127.0.0.1, [::1]) and the address reached are served otherwise, so that no web
        /// page can point its own name at the preview and read it.
        #[arg(long = "allow-host", value_name = "NAME")]
        allow_host: Vec<String>,
        /// Open the site in the default browser.
        #[arg(long)]
        open: bool,
        /// Include pages marked draft = true.
        #[arg(long)]
        drafts: bool,
        /// Print how long each step of every rebuild took.
        #[arg(long)]
        timings: bool,
    },
    /// Create and update case files from a spreadsheet (CSV, XLSX or ODS); nothing is
    /// written unless every row is valid.
    Import {
        /// The sheet: .csv (any delimiter), .xlsx or .ods.
        #[arg(value_name = "FILE", required_unless_present = "template")]
        file: Option<PathBuf>,
        /// The site folder (holding casebook.toml).
        #[arg(long, default_value = ".", value_name = "DIR")]
        root: PathBuf,
        /// Show what would be created and changed, field by field; write nothing.
        #[arg(long)]
        dry_run: bool,
        /// A mapping file: columns to fields, value translations, list separator, date format.
        #[arg(long, value_name = "MAP.toml")]
        mapping: Option<PathBuf>,
        /// Save the mapping this import used (every column named) for the next import.
        #[arg(long, value_name = "MAP.toml")]
        save_mapping: Option<PathBuf>,
        /// The folder holding the photographs that a `photos` column names.
        #[arg(long, value_name = "DIR")]
        photos: Option<PathBuf>,
        /// The workbook sheet to read (default: the first).
        #[arg(long, value_name = "NAME")]
        sheet: Option<String>,
        /// Write an empty sheet made from the case schema (.xlsx or .csv) instead of importing.
        #[arg(long, value_name = "FILE", conflicts_with_all = ["file", "dry_run", "mapping", "save_mapping", "photos", "sheet"])]
        template: Option<PathBuf>,
    },
    /// Create a minimal working site in DIR, with a CI pipeline that builds, checks,
    /// verifies, signs and publishes it; or add the pipeline alone to an existing site.
    Init {
        /// The folder to create the site in (or the existing site's folder, with --ci).
        dir: PathBuf,
        /// The CI pipeline: GitHub Actions and Pages (the default for a new site), GitLab CI
        /// and Pages, or none. Given for an existing site, adds only the pipeline.
        #[arg(long, value_enum, value_name = "SYSTEM")]
        ci: Option<CiArg>,
        /// In how many parallel jobs the pipeline derives the photographs.
        #[arg(long, value_name = "N", default_value_t = casebook::DEFAULT_SHARDS,
              value_parser = clap::value_parser!(u32).range(1..=i64::from(casebook::MAX_SHARDS)))]
        shards: u32,
        /// Replace an existing pipeline file.
        #[arg(long)]
        force: bool,
    },
    /// Pack a built site, checked first: a BagIt 1.0 bag for deposit (the site under
    /// data/), one zip file of a --portable build (the offline copy), or a WACZ web archive.
    Package {
        /// The built site (holding manifest.json).
        #[arg(default_value = "public", value_name = "DIR")]
        site: PathBuf,
        /// Write a BagIt bag into this new folder.
        #[arg(long, value_name = "DIR", required_unless_present_any = ["zip", "wacz"])]
        bag: Option<PathBuf>,
        /// Write the site (a --portable build) into this new zip file.
        #[arg(long, value_name = "FILE.zip")]
        zip: Option<PathBuf>,
        /// Write the site (a build for a server) into this new WACZ web archive, for
        /// web-archiving tools to replay. The capture date is SOURCE_DATE_EPOCH if set.
        #[arg(long, value_name = "FILE.wacz")]
        wacz: Option<PathBuf>,
    },
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum CiArg {
    Github,
    Gitlab,
    None,
}

#[derive(Args)]
struct SignArgs {
    /// Sign the manifest with this secret key (or set CASEBOOK_SIGNING_KEY); its password
    /// comes from CASEBOOK_KEY_PASSWORD or a prompt.
    #[arg(long, value_name = "KEYFILE", env = "CASEBOOK_SIGNING_KEY")]
    sign: Option<PathBuf>,
    /// A label for the signed release, e.g. "2026-12 public release".
    #[arg(long, value_name = "TEXT", requires = "sign")]
    release_label: Option<String>,
    /// Put the signing time in the signed comment (the build is then no longer reproducible).
    #[arg(long, requires = "sign")]
    timestamp: bool,
    /// Have the signature stamped by this RFC 3161 time-stamp authority (repeatable, for more
    /// than one); each token is published as manifest.json.minisig.<n>.tsr.
    #[arg(long, value_name = "URL", requires = "sign")]
    tsa: Vec<String>,
    /// An authority that fails or answers badly is a warning, not a failed build.
    #[arg(long, requires = "tsa")]
    tsa_optional: bool,
}

/// The password of a secret key: CASEBOOK_KEY_PASSWORD, else asked on the terminal.
fn key_password(prompt: &str) -> Result<String, Error> {
    if let Ok(p) = std::env::var("CASEBOOK_KEY_PASSWORD") {
        return Ok(p);
    }
    if !std::io::stdin().is_terminal() {
        return Err(usage(
            "the secret key's password is needed: set CASEBOOK_KEY_PASSWORD (in CI, from a secret), or run on a terminal",
        ));
    }
    rpassword::prompt_password(prompt).map_err(|source| Error::Io {
        path: "terminal".into(),
        source,
    })
}

fn usage(message: &str) -> Error {
    Error::Diagnostics(vec![casebook::Diagnostic {
        path: "casebook".into(),
        line: 0,
        column: 0,
        field: None,
        message: message.into(),
        hint: None,
    }])
}

fn init(dir: &Path, ci: Option<CiArg>, shards: u32, force: bool) -> Result<String, Error> {
    let options = casebook::InitOptions {
        ci: match ci {
            None | Some(CiArg::Github) => Some(casebook::Ci::Github),
            Some(CiArg::Gitlab) => Some(casebook::Ci::Gitlab),
            Some(CiArg::None) => None,
        },
        ci_asked: ci.is_some(),
        shards,
        force,
    };
    let existing = dir.join("casebook.toml").exists();
    let files = casebook::init(dir, &options)?;
    let listed = files.join(", ");
    Ok(if existing {
        format!(
            "added to the site in {}: {listed}; commit it and push",
            dir.display()
        )
    } else {
        format!(
            "created a site in {} ({}: {listed}); build it with: casebook build --root {}",
            dir.display(),
            count(files.len(), "file", "files"),
            dir.display()
        )
    })
}

/// Opens the signing key before anything is built, so a wrong password costs no build.
fn signing(args: SignArgs) -> Result<Option<casebook::Signing>, Error> {
    let Some(file) = args.sign else {
        return Ok(None);
    };
    let password = if casebook::key_is_encrypted(&file)? {
        Some(key_password(&format!("password for {}: ", file.display()))?)
    } else {
        None
    };
    let key = casebook::SigningKey::open(&file, password.as_deref())?;
    if let Some(label) = &args.release_label {
        // minisign reads the signed comment trimmed: surrounding spaces would not verify.
        if label.trim() != label
            || label.is_empty()
            || label.chars().count() > 200
            || label.chars().any(char::is_control)
        {
            return Err(usage(
                "--release-label is one line of 1 to 200 characters, without spaces at either end",
            ));
        }
    }
    Ok(Some(casebook::Signing {
        key,
        label: args.release_label,
        timestamp: args
            .timestamp
            .then(|| chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)),
        authorities: args.tsa,
        authorities_optional: args.tsa_optional,
    }))
}

/// `casebook keygen`.
fn keygen(dir: &std::path::Path, unencrypted: bool) -> Result<String, Error> {
    let password = if unencrypted {
        eprintln!(
            "warning: the secret key is written without a password: anyone who copies the file can sign as you. \
             Keep it only in a CI secrets store."
        );
        None
    } else if let Ok(p) = std::env::var("CASEBOOK_KEY_PASSWORD") {
        Some(p)
    } else {
        let first = key_password("password for the new secret key: ")?;
        let again = key_password("the same password again: ")?;
        if first != again {
            return Err(usage("the two passwords differ; nothing was written"));
        }
        Some(first)
    };
    if password.as_deref() == Some("") {
        return Err(usage(
            "an empty password protects nothing; give one, or use --unencrypted knowingly",
        ));
    }
    let files = casebook::keygen(dir, password.as_deref())?;
    Ok(format!(
        "wrote the secret key {} and the public key {} (key ID {})\n\
         keep the secret key outside the site folder and its repository, and back it up.\n\
         add to casebook.toml:\n\n[signing]\npublic_key = \"{}\"",
        files.secret.display(),
        files.public.display(),
        files.public_key.id(),
        files.public_key.to_base64()
    ))
}

#[derive(Args)]
struct SiteArgs {
    /// The site folder (holding casebook.toml).
    #[arg(long, default_value = ".", value_name = "DIR")]
    root: PathBuf,
    /// Include pages marked draft = true.
    #[arg(long)]
    drafts: bool,
    /// Print how long each stage took.
    #[arg(long)]
    timings: bool,
}

/// A failed preview build: the problems, and that the browser shows them too.
fn print_failure(diagnostics: &[casebook::Diagnostic]) {
    let them = if diagnostics.len() == 1 { "it" } else { "them" };
    eprintln!(
        "{}",
        casebook::report(
            diagnostics,
            &format!("the browser shows {them} until the next good build")
        )
    );
}

/// `1 case`, `2 cases`.
fn count(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

fn files_changed(n: usize) -> String {
    format!("{} changed", count(n, "file", "files"))
}

/// Progress of long image runs on stderr: a bar on a terminal, a line per tenth otherwise,
/// each with the photographs done, the rate and the time left.
/// Prints notes and warnings as the build meets them, before its outcome.
fn print_notices() -> casebook::Notices {
    casebook::Notices(Arc::new(|notice| match notice {
        casebook::Notice::Note(d) => eprintln!("note: {d}"),
        casebook::Notice::Warning(d) => eprintln!("warning: {d}"),
    }))
}

fn image_progress() -> casebook::Progress {
    let terminal = std::io::stderr().is_terminal();
    let bar: Mutex<Option<indicatif::ProgressBar>> = Mutex::new(None);
    let started: Mutex<Option<Instant>> = Mutex::new(None);
    casebook::Progress(Arc::new(move |done, total| {
        if total < 20 {
            return;
        }
        if !terminal {
            let mut started = started.lock().unwrap_or_else(|e| e.into_inner());
            let since = *started.get_or_insert_with(Instant::now);
            if done > 0 && done * 10 / total != (done - 1) * 10 / total {
                eprintln!("{}", casebook::Progress::line(done, total, since.elapsed()));
            }
            return;
        }
        let mut bar = bar.lock().unwrap_or_else(|e| e.into_inner());
        // Made when told (0, total), before the first photograph: its clock starts there.
        let bar = bar.get_or_insert_with(|| {
            let bar = indicatif::ProgressBar::new(total as u64);
            if let Ok(style) = indicatif::ProgressStyle::with_template(
                "images {bar:30} {pos}/{len} ({per_sec}, {eta} left)",
            ) {
                bar.set_style(style);
            }
            bar
        });
        bar.set_position(done as u64);
        if done == total {
            bar.finish_and_clear();
        }
    }))
}

/// How many photographs are not reviewed, and with `verbose` which.
fn reviews(r: &casebook::Reviews, verbose: bool) -> String {
    if r.photos == 0 {
        return String::new();
    }
    let mut out = format!(
        "\n{} of {} not reviewed",
        r.unreviewed.len(),
        count(r.photos, "photograph", "photographs")
    );
    match r.stale() {
        0 => {}
        n => out.push_str(&format!(
            " ({n} of them reviewed before a change: the review no longer covers it)"
        )),
    }
    for u in r.unreviewed.iter().filter(|_| verbose) {
        let why = if u.stale {
            "review no longer covers it"
        } else {
            "not reviewed"
        };
        let (page, line, photo, covers) = (u.page.display(), u.line, &u.photo, &u.covers);
        out.push_str(&format!(
            "\n  {page}:{line}: {photo}: {why} (covers = \"{covers}\")"
        ));
    }
    out
}

fn main() -> ExitCode {
    // Freed memory goes back to the system after 2 ms instead of 10 (100 for arenas): a
    // build frees the steps it is done with (the search index's tables, the export's
    // records) while the next ones grow, and the peak is the sum. 11,000 cases, cold: 348
    // to 310 MiB, for about 5 % more time in a warm build (benches/README.md, "Memory").
    // A build after an edit sets a longer delay once it knows (`site::memory`).
    casebook::return_freed_after(casebook::FROM_NOTHING);
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    let started = Instant::now();
    let show_timings = match &cli.command {
        Command::Build { site, .. } | Command::Check { site, .. } => site.timings,
        Command::Init { .. }
        | Command::Package { .. }
        | Command::Import { .. }
        | Command::Verify { .. }
        | Command::Serve { .. }
        | Command::Keygen { .. } => false,
    };
    let print_timings = |r: &casebook::BuildReport| {
        if show_timings {
            for (stage, took) in &r.timings {
                eprintln!("  {stage:<14} {:>9.1} ms", took.as_secs_f64() * 1000.0);
            }
        }
    };
    let result = match cli.command {
        Command::Build {
            site,
            shard: Some(shard),
            ..
        } => casebook::build_shard(
            &BuildOptions {
                root: site.root,
                drafts: site.drafts,
                progress: Some(image_progress()),
                ..Default::default()
            },
            shard,
        )
        .map(|r| {
            format!(
                "shard {}: {} of {} ({} derived, {} already in the cache) into {} in {:.2?}",
                r.shard,
                count(r.photos, "photograph", "photographs"),
                r.total,
                r.derived,
                r.photos - r.derived,
                r.cache.display(),
                started.elapsed(),
            )
        }),
        Command::Build {
            site,
            output,
            base_url,
            portable,
            proofs,
            sign,
            shard: None,
        } => signing(sign)
            .and_then(|signing| {
                casebook::build(&BuildOptions {
                    root: site.root,
                    output,
                    base_url,
                    drafts: site.drafts,
                    portable,
                    progress: Some(image_progress()),
                    notices: Some(print_notices()),
                    signing,
                    proofs,
                })
            })
            .map(|r| {
                print_timings(&r);
                let site = format!(
                    "{} ({}, {})",
                    count(r.pages, "page", "pages"),
                    count(r.cases, "case", "cases"),
                    count(r.files, "file", "files"),
                );
                if r.up_to_date {
                    return format!(
                        "nothing changed since the last build: {site} in {} as they are (checked in {:.2?})",
                        r.output.display(),
                        started.elapsed(),
                    );
                }
                let derived = match r.photos_derived {
                    0 => String::new(),
                    n => format!(", {} derived", count(n, "photograph", "photographs")),
                };
                format!(
                    "built {site} into {} in {:.2?} ({} rendered, {} changed{derived})",
                    r.output.display(),
                    started.elapsed(),
                    count(r.rendered, "page", "pages"),
                    count(r.changed, "file", "files"),
                )
            }),
        Command::Check { site, verbose } => casebook::check(&BuildOptions {
            root: site.root,
            drafts: site.drafts,
            notices: Some(print_notices()),
            ..Default::default()
        })
        .map(|r| {
            print_timings(&r);
            format!(
                "ok: {} ({}) checked, no problems found{}",
                count(r.pages, "page", "pages"),
                count(r.cases, "case", "cases"),
                reviews(&r.reviews, verbose)
            )
        }),
        Command::Verify {
            target,
            redactions: true,
            ..
        } => casebook::verify_redactions(&target).map(|v| v.to_string()),
        Command::Verify {
            target,
            pubkey,
            pubkey_file,
            case,
            tsa_cert,
            ..
        } => verify(target, pubkey, pubkey_file, case, tsa_cert),
        Command::Keygen { dir, unencrypted } => keygen(&dir, unencrypted),
        Command::Serve {
            root,
            port,
            bind,
            allow_host,
            open,
            drafts,
            timings,
        } => serve(
            &casebook::serve::ServeOptions {
                root,
                bind,
                port,
                drafts,
                allow_hosts: allow_host,
                ..Default::default()
            },
            open,
            timings,
        ),
        Command::Import {
            template: Some(out),
            root,
            ..
        } => casebook::template(&root, &out),
        Command::Import {
            file,
            root,
            dry_run,
            mapping,
            save_mapping,
            photos,
            sheet,
            template: None,
        } => casebook::import(&casebook::ImportOptions {
            root,
            file: file.expect("clap requires FILE without --template"),
            sheet,
            mapping,
            save_mapping,
            photos,
            dry_run,
        })
        .map(|report| report.to_string()),
        Command::Package {
            site,
            bag,
            zip,
            wacz,
        } => package(&site, bag, zip, wacz),
        Command::Init {
            dir,
            ci,
            shards,
            force,
        } => init(&dir, ci, shards, force),
    };
    match result {
        Ok(summary) => {
            println!("{summary}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            match &e {
                Error::Diagnostics(_) | Error::Many { .. } => eprintln!("{e}"),
                Error::Io { .. } => eprintln!("error: {e}"),
            }
            ExitCode::from(1)
        }
    }
}
