//! `stc-conformance-run`: runs the STC conformance corpus against any
//! program, in the style of toml-test: a decoder reads STC on stdin and writes JSON on stdout, an
//! encoder reads JSON on stdin and writes STC; both exit non-zero on invalid
//! input. The contract is in `conformance/RUNNER.md`.
//!
//! ```text
//! stc-conformance-run --decoder 'stc decode --max-depth {max_depth}' \
//!                     --encoder 'stc encode --profile {profile} --max-depth {max_depth}'
//! ```

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use crate::{case_paths, cases_dir, quote, read_file, stem, Case, CATEGORIES};
use clap::{Parser, ValueEnum};
use stc_core::DecodeOptions;

/// Most bytes kept of a program's stdout or stderr; more is a failure.
const MAX_OUTPUT: u64 = 64 << 20;

/// The command line of `stc-conformance-run`.
#[derive(Parser)]
#[command(
    name = "stc-conformance-run",
    about = "Run the STC conformance corpus against any decoder and encoder program",
    long_about = "Run the STC conformance corpus against any decoder and encoder program.\n\n\
        A decoder reads STC on stdin and writes minified JSON on stdout; an encoder reads JSON on \
        stdin and writes STC on stdout. Both exit with a non-zero status on invalid input. In a \
        command, {profile} becomes compact or readable, {max_depth} the case's depth limit and \
        {version} its STC version (1 or 2; version 2 cases are skipped when no command has \
        {version}); the same values are in the environment as STC_PROFILE, STC_MAX_DEPTH and \
        STC_VERSION. Commands are split \
        into words like a POSIX shell does (quotes, backslashes), then run directly, without a \
        shell. See conformance/RUNNER.md for the whole contract.\n\n\
        Exit status: 0 when every case that ran passed, 1 when any failed, 2 on a usage error, an \
        unreadable case file, or when no case ran."
)]
pub struct Args {
    /// The decoder command (STC on stdin, JSON on stdout).
    #[arg(long, value_name = "COMMAND")]
    pub decoder: Option<String>,
    /// The encoder command (JSON on stdin, STC on stdout).
    #[arg(long, value_name = "COMMAND")]
    pub encoder: Option<String>,
    /// Directory of the case files.
    #[arg(long, value_name = "DIR", default_value_os_t = cases_dir())]
    pub cases: PathBuf,
    /// Run only cases whose full name (category::file-stem::case-name)
    /// contains this text; may be repeated (any of them).
    #[arg(long, value_name = "TEXT")]
    pub filter: Vec<String>,
    /// Seconds one run of a program may take before it is killed (a failure).
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0)]
    pub timeout: f64,
    /// Programs run at the same time.
    #[arg(long, value_name = "N", default_value_t = std::thread::available_parallelism().map_or(2, |n| n.get()))]
    pub jobs: usize,
    /// How an invalid case passes. `exit`: a non-zero exit status is enough.
    /// `auto`: and when the program prints a `stc-error: KIND OFFSET` line on
    /// stderr, kind and byte offset must match. `strict`: that line is required.
    #[arg(long, value_enum, default_value_t = ErrorMode::Auto)]
    pub errors: ErrorMode,
    /// How an `encode` case passes. `exact`: stdout is the case's expected
    /// text, byte for byte (what the reference encoder writes). `value`: stdout,
    /// decoded by the reference decoder (the case's version and depth limit),
    /// is the same JSON value as the case's input (number lexemes, key order and
    /// duplicate keys included); any correct encoder passes.
    #[arg(long, value_enum, default_value_t = EncoderCheck::Exact)]
    pub encoder_check: EncoderCheck,
    /// The program takes text only: skip the cases whose input is not UTF-8
    /// (`input_hex`), saying so.
    #[arg(long)]
    pub text_only: bool,
    /// Print every case, passed and skipped ones too.
    #[arg(short, long)]
    pub verbose: bool,
}

/// How an `invalid` or `json-invalid` case passes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ErrorMode {
    /// A non-zero exit status is enough.
    Exit,
    /// And a `stc-error: KIND OFFSET` line, when printed, must match.
    Auto,
    /// The `stc-error` line is required and must match.
    Strict,
}

/// How an `encode` case passes (`--encoder-check`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum EncoderCheck {
    /// The output is the case's `expected` text, byte for byte.
    Exact,
    /// The output decodes (reference decoder, the case's version and depth
    /// limit) to the same value as the case's input.
    Value,
}

/// The counts of a finished run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Summary {
    /// Cases that passed.
    pub passed: usize,
    /// Cases that failed.
    pub failed: usize,
    /// Cases not run, each for a reason printed in the report.
    pub skipped: usize,
}

impl Summary {
    /// The exit status the command gives: 0 all passed, 1 a failure, 2 nothing ran.
    pub fn exit_code(&self) -> u8 {
        if self.failed > 0 {
            1
        } else if self.passed == 0 {
            2
        } else {
            0
        }
    }
}

/// One case to run.
struct Job {
    name: String,
    category: String,
    file: PathBuf,
    case: Case,
}

enum Verdict {
    Pass,
    Fail(String),
    Skip(String),
}

/// What one run of a program did.
struct Run {
    status: ExitStatus,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
}

struct Runner {
    decoder: Option<Vec<String>>,
    encoder: Option<Vec<String>>,
    timeout: Duration,
    errors: ErrorMode,
    encoder_check: EncoderCheck,
    text_only: bool,
}

fn split(what: &str, command: &Option<String>) -> Result<Option<Vec<String>>, String> {
    let Some(command) = command else {
        return Ok(None);
    };
    let words = shell_words::split(command).map_err(|e| format!("--{what} {command:?}: {e}"))?;
    if words.is_empty() {
        return Err(format!("--{what} is empty"));
    }
    Ok(Some(words))
}

/// Runs the corpus as `args` say, writing the report (failures with
/// diffs, with `verbose` every case, then the summary) to `out`. `Err` is a
/// usage error or a case file that cannot be read (exit status 2).
pub fn run(args: &Args, out: &mut dyn Write) -> Result<Summary, String> {
    let runner = Runner {
        decoder: split("decoder", &args.decoder)?,
        encoder: split("encoder", &args.encoder)?,
        timeout: Duration::try_from_secs_f64(args.timeout)
            .ok()
            .filter(|t| !t.is_zero())
            .ok_or_else(|| format!("--timeout {} is not a positive number of seconds", args.timeout))?,
        errors: args.errors,
        encoder_check: args.encoder_check,
        text_only: args.text_only,
    };
    if runner.decoder.is_none() && runner.encoder.is_none() {
        return Err("give --decoder, --encoder or both".into());
    }
    let jobs = load(&args.cases, &args.filter)?;
    if jobs.is_empty() {
        return Err(format!("no case matches the filter {:?}", args.filter));
    }

    // Run in parallel; report in name order.
    let next = AtomicUsize::new(0);
    let (tx, rx) = mpsc::channel();
    std::thread::scope(|scope| {
        for _ in 0..args.jobs.max(1) {
            let tx = tx.clone();
            let (next, jobs, runner) = (&next, &jobs, &runner);
            scope.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(job) = jobs.get(i) else { break };
                let _ = tx.send((i, runner.check(job)));
            });
        }
    });
    drop(tx);
    let mut verdicts: Vec<(usize, Verdict)> = rx.into_iter().collect();
    verdicts.sort_by_key(|(i, _)| *i);

    let (mut passed, mut failed) = (0usize, 0usize);
    let mut skipped: BTreeMap<String, usize> = BTreeMap::new();
    for (i, verdict) in &verdicts {
        let job = &jobs[*i];
        let _ = match verdict {
            Verdict::Pass => {
                passed += 1;
                if args.verbose {
                    writeln!(out, "PASS {}", job.name)
                } else {
                    Ok(())
                }
            }
            Verdict::Skip(why) => {
                *skipped.entry(why.clone()).or_default() += 1;
                if args.verbose {
                    writeln!(out, "SKIP {} ({why})", job.name)
                } else {
                    Ok(())
                }
            }
            Verdict::Fail(report) => {
                failed += 1;
                writeln!(out, "FAIL {}\n{}\n", job.name, describe(job, report))
            }
        };
    }
    let skipped_total: usize = skipped.values().sum();
    let _ = writeln!(
        out,
        "{} cases: {passed} passed, {failed} failed, {skipped_total} skipped",
        passed + failed + skipped_total
    );
    for (why, n) in &skipped {
        let _ = writeln!(out, "  skipped {n}: {why}");
    }
    if passed + failed == 0 {
        let _ = writeln!(out, "no case ran");
    }
    let _ = out.flush();
    Ok(Summary { passed, failed, skipped: skipped_total })
}

/// Every case of every file of `dir` whose name matches a filter.
fn load(dir: &Path, filters: &[String]) -> Result<Vec<Job>, String> {
    let paths = case_paths(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    if paths.is_empty() {
        return Err(format!("no *.json case files in {}", dir.display()));
    }
    let mut jobs = Vec::new();
    for path in paths {
        let (_, file) = read_file(&path)?;
        if !CATEGORIES.contains(&file.category.as_str()) {
            return Err(format!("{}: unknown category {:?}", path.display(), file.category));
        }
        // Case files hold cases only: `stc-conformance-bless` expanded the seeds.
        if let Some(seed) = file.cases.iter().find(|c| c.prefixes.is_some()) {
            return Err(format!(
                "{}: case {:?} is a seed (it has \"prefixes\"); seeds belong in conformance/seeds/ and `stc-conformance-bless` expands them",
                path.display(),
                seed.name
            ));
        }
        for case in file.cases {
            let name = format!("{}::{}::{}", file.category, stem(&path), case.name);
            if filters.is_empty() || filters.iter().any(|f| name.contains(f.as_str())) {
                jobs.push(Job { name, category: file.category.clone(), file: path.clone(), case });
            }
        }
    }
    Ok(jobs)
}

/// The case as a failure report shows it.
fn describe(job: &Job, report: &str) -> String {
    let mut s = format!("  file:     {}\n  spec:     section {}\n", job.file.display(), job.case.spec);
    if let Some(note) = &job.case.note {
        s += &format!("  note:     {note}\n");
    }
    if let Some(o) = &job.case.options {
        s += &format!("  options:  profile={:?} max_depth={:?} version={:?}\n", o.profile, o.max_depth, o.version);
    }
    match (&job.case.input, &job.case.input_hex) {
        (Some(text), _) => s += &format!("  input:    {}\n", clip(&quote(text))),
        (_, Some(hex)) => s += &format!("  input_hex: {}\n", clip(hex)),
        _ => {}
    }
    for line in report.lines() {
        s += &format!("  {line}\n");
    }
    s.trim_end().to_string()
}

/// At most 600 characters of `s`.
fn clip(s: &str) -> String {
    match s.char_indices().nth(600) {
        Some((at, _)) => format!("{}… ({} bytes in all)", &s[..at], s.len()),
        None => s.to_string(),
    }
}

/// The text around byte `at` of `s`, as a JSON string.
fn around(s: &[u8], at: usize) -> String {
    let start = at.saturating_sub(40);
    let end = (at + 40).min(s.len());
    let text = String::from_utf8_lossy(&s[start.min(end)..end]);
    format!("{}{}{}", if start > 0 { "…" } else { "" }, quote(&text), if end < s.len() { "…" } else { "" })
}

/// A text diff: both texts and where they first differ.
fn text_diff(expected: &str, actual: &[u8]) -> String {
    let at = expected.bytes().zip(actual).take_while(|(a, b)| a == *b).count();
    format!(
        "expected: {}\nactual:   {}\nfirst difference at byte {at}: expected {}, actual {}",
        clip(&quote(expected)),
        clip(&quote(&String::from_utf8_lossy(actual))),
        around(expected.as_bytes(), at),
        around(actual, at)
    )
}

/// The `stc-error: KIND OFFSET` line of a program's stderr, if any.
fn error_line(stderr: &[u8]) -> Option<(String, usize)> {
    String::from_utf8_lossy(stderr).lines().find_map(|line| {
        let rest = line.trim_end().strip_prefix("stc-error: ")?;
        let (kind, offset) = rest.split_once(' ')?;
        Some((kind.to_string(), offset.parse().ok()?))
    })
}

fn stderr_excerpt(stderr: &[u8]) -> String {
    let text = String::from_utf8_lossy(stderr);
    let text = text.trim_end();
    if text.is_empty() {
        "(stderr empty)".into()
    } else {
        format!("stderr:   {}", clip(&quote(text)))
    }
}

/// Output text without one final line feed.
fn output(run: &Run) -> &[u8] {
    run.stdout.strip_suffix(b"\n").unwrap_or(&run.stdout)
}

fn status_text(status: &ExitStatus) -> String {
    match status.code() {
        Some(code) => format!("exit status {code}"),
        None => format!("killed by a signal ({status})"),
    }
}

impl Runner {
    fn check(&self, job: &Job) -> Verdict {
        let case = &job.case;
        if self.text_only && case.input.is_none() {
            return Verdict::Skip("input is not UTF-8 and the program takes text only (--text-only)".into());
        }
        let input = case.input_bytes();
        let depth = Knobs { max_depth: case.limits().max_depth, version: case.version().as_u8() };
        let (needs_decoder, needs_encoder) = match job.category.as_str() {
            "decode" | "invalid" => (true, false),
            "encode" | "json-invalid" => (false, true),
            _ => (true, true),
        };
        let (Some(decoder), Some(encoder)) = (
            self.decoder.as_deref().or((!needs_decoder).then_some(&[][..])),
            self.encoder.as_deref().or((!needs_encoder).then_some(&[][..])),
        ) else {
            let missing = if needs_decoder && self.decoder.is_none() { "--decoder" } else { "--encoder" };
            return Verdict::Skip(format!("{} cases need {missing}", job.category));
        };
        if depth.version != 1 && ![decoder, encoder].iter().any(|p| p.iter().any(|w| w.contains("{version}"))) {
            return Verdict::Skip(format!(
                "a version {} case, and the commands have no {{version}} placeholder",
                depth.version
            ));
        }
        let result = match job.category.as_str() {
            "decode" => self.expect_text(decoder, None, depth, &input, case),
            "invalid" => self.expect_error(decoder, None, depth, &input, case, "decode"),
            "encode" if self.encoder_check == EncoderCheck::Value => {
                self.expect_value(encoder, case.profile().name(), depth, &input, case)
            }
            "encode" => self.expect_text(encoder, Some(case.profile().name()), depth, &input, case),
            "json-invalid" => self.expect_error(encoder, Some("compact"), depth, &input, case, "encode"),
            _ => self.roundtrip(decoder, encoder, depth, &input, case),
        };
        match result {
            Ok(()) => Verdict::Pass,
            Err(report) => Verdict::Fail(report),
        }
    }

    fn expect_text(
        &self,
        program: &[String],
        profile: Option<&str>,
        depth: Knobs,
        input: &[u8],
        case: &Case,
    ) -> Result<(), String> {
        let expected = case.expected.as_deref().unwrap_or_default();
        let what = describe_call(program, profile, depth);
        let run = self.invoke(program, profile, depth, input).map_err(|e| format!("{what}\n{e}"))?;
        if !run.status.success() {
            return Err(format!(
                "{what}\nexpected: output {}\nactual:   {}\n{}",
                clip(&quote(expected)),
                status_text(&run.status),
                stderr_excerpt(&run.stderr)
            ));
        }
        if output(&run) != expected.as_bytes() {
            return Err(format!("{what}\n{}", text_diff(expected, output(&run))));
        }
        Ok(())
    }

    /// `--encoder-check value`: the encoder's output, decoded by the reference
    /// decoder with the case's version and depth limit, is the value of the
    /// case's input decoded the same way. Both are compared as the minified JSON
    /// text `stc_core` writes, which keeps number lexemes, key order and
    /// duplicate keys: lossless equality.
    fn expect_value(
        &self,
        program: &[String],
        profile: &str,
        depth: Knobs,
        input: &[u8],
        case: &Case,
    ) -> Result<(), String> {
        let options = DecodeOptions::default().limits(case.limits()).version(case.version());
        let want = stc_core::decode_bytes_with(input, &options)
            .map_err(|e| format!("the case's input is not a JSON value the reference decoder reads: {e}"))?;
        let what = describe_call(program, Some(profile), depth);
        let run = self.invoke(program, Some(profile), depth, input).map_err(|e| format!("{what}\n{e}"))?;
        if !run.status.success() {
            return Err(format!(
                "{what}\nexpected: STC text whose value is {}\nactual:   {}\n{}",
                clip(&quote(&want)),
                status_text(&run.status),
                stderr_excerpt(&run.stderr)
            ));
        }
        let stc = output(&run);
        let got = stc_core::decode_bytes_with(stc, &options).map_err(|e| {
            format!(
                "{what}\n  gave {}\nexpected: STC version {} text whose value is {}\n\
                 actual:   the reference decoder (version {}, max depth {}) rejects it: {} at byte {}: {e}",
                clip(&quote(&String::from_utf8_lossy(stc))),
                depth.version,
                clip(&quote(&want)),
                depth.version,
                depth.max_depth,
                e.kind().code(),
                e.offset().unwrap_or(0),
            )
        })?;
        if got != want {
            return Err(format!(
                "{what}\n  gave {}\nvalues differ (the input and the output, each decoded to minified JSON):\n{}",
                clip(&quote(&String::from_utf8_lossy(stc))),
                text_diff(&want, got.as_bytes())
            ));
        }
        Ok(())
    }

    fn expect_error(
        &self,
        program: &[String],
        profile: Option<&str>,
        depth: Knobs,
        input: &[u8],
        case: &Case,
        op: &str,
    ) -> Result<(), String> {
        let Some(want) = &case.error else {
            return Err("case has no error".into());
        };
        let what = describe_call(program, profile, depth);
        let run = self.invoke(program, profile, depth, input).map_err(|e| format!("{what}\n{e}"))?;
        let expected = format!("expected: {op} fails (exit status not 0), error {} at byte {}", want.kind, want.offset);
        if run.status.success() {
            return Err(format!(
                "{what}\n{expected}\nactual:   exit status 0, output {}",
                clip(&quote(&String::from_utf8_lossy(&run.stdout)))
            ));
        }
        if run.status.code().is_none() {
            return Err(format!(
                "{what}\n{expected}\nactual:   {} (a crash is not a rejection)\n{}",
                status_text(&run.status),
                stderr_excerpt(&run.stderr)
            ));
        }
        match (error_line(&run.stderr), self.errors) {
            (_, ErrorMode::Exit) => Ok(()),
            (None, ErrorMode::Auto) => Ok(()),
            (None, ErrorMode::Strict) => Err(format!(
                "{what}\n{expected}\nactual:   {}, but no `stc-error: KIND OFFSET` line on stderr (--errors strict)\n{}",
                status_text(&run.status),
                stderr_excerpt(&run.stderr)
            )),
            (Some((kind, offset)), _) if kind == want.kind && offset == want.offset => Ok(()),
            (Some((kind, offset)), _) => Err(format!(
                "{what}\n{expected}\nactual:   error {kind} at byte {offset}\n{}",
                stderr_excerpt(&run.stderr)
            )),
        }
    }

    fn roundtrip(
        &self,
        decoder: &[String],
        encoder: &[String],
        depth: Knobs,
        input: &[u8],
        case: &Case,
    ) -> Result<(), String> {
        let expected = case.expected.as_deref().unwrap_or_default();
        let mut failures = Vec::new();
        for profile in ["compact", "readable"] {
            let what = describe_call(encoder, Some(profile), depth);
            let encoded = match self.invoke(encoder, Some(profile), depth, input) {
                Err(e) => {
                    failures.push(format!("{what}\n{e}"));
                    continue;
                }
                Ok(run) if !run.status.success() => {
                    failures.push(format!(
                        "{what}\nexpected: STC output\nactual:   {}\n{}",
                        status_text(&run.status),
                        stderr_excerpt(&run.stderr)
                    ));
                    continue;
                }
                Ok(run) => run,
            };
            let stc = output(&encoded).to_vec();
            let what = format!(
                "{what}\n  gave {}\nthen {}",
                clip(&quote(&String::from_utf8_lossy(&stc))),
                describe_call(decoder, None, depth)
            );
            match self.invoke(decoder, None, depth, &stc) {
                Err(e) => failures.push(format!("{what}\n{e}")),
                Ok(run) if !run.status.success() => failures.push(format!(
                    "{what}\nexpected: output {}\nactual:   {}\n{}",
                    clip(&quote(expected)),
                    status_text(&run.status),
                    stderr_excerpt(&run.stderr)
                )),
                Ok(run) if output(&run) != expected.as_bytes() => {
                    failures.push(format!("{what}\n{}", text_diff(expected, output(&run))))
                }
                Ok(_) => {}
            }
        }
        if failures.is_empty() {
            Ok(())
        } else {
            Err(failures.join("\n"))
        }
    }

    /// Runs `program` with `input` on stdin; `Err` when it cannot be run,
    /// times out or writes too much.
    fn invoke(&self, program: &[String], profile: Option<&str>, depth: Knobs, input: &[u8]) -> Result<Run, String> {
        let words: Vec<String> = program.iter().map(|w| substitute(w, profile, depth)).collect();
        let mut command = Command::new(&words[0]);
        command
            .args(&words[1..])
            .env("STC_MAX_DEPTH", depth.max_depth.to_string())
            .env("STC_VERSION", depth.version.to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(p) = profile {
            command.env("STC_PROFILE", p);
        } else {
            command.env_remove("STC_PROFILE");
        }
        // Its own process group, so that a timeout ends whatever it started too.
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let mut child = command.spawn().map_err(|e| format!("cannot run {:?}: {e}", words[0]))?;
        let pid = child.id();
        let mut stdin = child.stdin.take();
        let mut stdout = child.stdout.take();
        let mut stderr = child.stderr.take();
        let input = input.to_vec();
        let capture = |pipe: Option<Box<dyn Read + Send>>| {
            let (tx, rx) = mpsc::channel();
            std::thread::spawn(move || {
                let mut buf = Vec::new();
                if let Some(p) = pipe {
                    let _ = p.take(MAX_OUTPUT + 1).read_to_end(&mut buf);
                }
                let _ = tx.send(buf);
            });
            rx
        };
        let out_rx = capture(stdout.take().map(|p| Box::new(p) as Box<dyn Read + Send>));
        let err_rx = capture(stderr.take().map(|p| Box::new(p) as Box<dyn Read + Send>));
        std::thread::spawn(move || {
            if let Some(mut s) = stdin.take() {
                // A program may exit without reading all of its input: not our error.
                let _ = s.write_all(&input);
            }
        });
        // Waited for on a thread of its own, so that the status arrives the
        // moment the program ends (no polling delay: a corpus run starts
        // thousands of programs).
        let (status_tx, status_rx) = mpsc::channel();
        std::thread::spawn(move || {
            let _ = status_tx.send(child.wait());
        });
        let status = match status_rx.recv_timeout(self.timeout) {
            Ok(Ok(status)) => status,
            Ok(Err(e)) => return Err(format!("waiting for {:?}: {e}", words[0])),
            Err(_) => {
                // Its process group: the program (the group's leader, unless it
                // made a session of its own) and what it started.
                kill_group(pid);
                // Reap it (the waiting thread returns once it is dead).
                let _ = status_rx.recv_timeout(Duration::from_secs(5));
                return Err(format!("timed out after {:?} (killed)", self.timeout));
            }
        };
        // Processes it started may still hold its pipes open: after a grace
        // period, end them too.
        let collect = |rx: mpsc::Receiver<Vec<u8>>| match rx.recv_timeout(Duration::from_secs(2)) {
            Ok(buf) => buf,
            Err(_) => {
                kill_group(pid);
                rx.recv_timeout(Duration::from_secs(2)).unwrap_or_default()
            }
        };
        let stdout = collect(out_rx);
        let stderr = collect(err_rx);
        if stdout.len() as u64 > MAX_OUTPUT || stderr.len() as u64 > MAX_OUTPUT {
            return Err(format!("wrote more than {MAX_OUTPUT} bytes"));
        }
        Ok(Run { status, stdout, stderr })
    }
}

/// `words` as one command line for `--decoder`/`--encoder`, each word quoted
/// as a POSIX shell would need (for paths with spaces or quotes).
pub fn command_line(words: &[&str]) -> String {
    shell_words::join(words)
}

/// Kills the process group `pid` leads (the program and what it started).
fn kill_group(pid: u32) {
    let _ = Command::new("kill")
        .args(["-s", "KILL", "--", &format!("-{pid}")])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
}

/// The case's limits and version, as the placeholders give them to a program.
#[derive(Debug, Clone, Copy)]
struct Knobs {
    max_depth: usize,
    version: u8,
}

fn substitute(word: &str, profile: Option<&str>, knobs: Knobs) -> String {
    word.replace("{profile}", profile.unwrap_or("compact"))
        .replace("{max_depth}", &knobs.max_depth.to_string())
        .replace("{version}", &knobs.version.to_string())
}

/// The command line a case ran, with its placeholders filled in.
fn describe_call(program: &[String], profile: Option<&str>, depth: Knobs) -> String {
    let words: Vec<String> = program.iter().map(|w| substitute(w, profile, depth)).collect();
    format!("ran:      {}", shell_words::join(&words))
}
