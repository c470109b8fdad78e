//! Runs the conformance corpus against the Rust reference: one test per case
//! (`<category>::<file-stem>::<case-name>`), plus structure checks of every
//! case file `cases/<category>/<topic>.json` (`structure::<category>/<topic>`,
//! `format::<category>/<topic>`), of every seed file
//! `seeds/<category>/<topic>.json` (`structure::seeds/…`, `format::seeds/…`,
//! and `generated::<category>/<topic>`: the case file it generates is up to
//! date) and of the corpus as a whole (`structure::unique-names`).
//!
//! `cargo test -p stc-conformance` runs everything; the usual libtest
//! filters work (`cargo test -p stc-conformance -- invalid::`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use libtest_mimic::{Arguments, Failed, Trial};
use stc_conformance::{
    case_paths, cases_dir, check, check_abnf_rules, check_schema_error_kinds, check_spec_sections, display_path,
    format_file, generated_file, generated_path, placement_problem, read_file, seed_file_problems, seeds_dir, stem,
    structure_problems, CaseFile,
};

/// Stack for running one case: the 8 MiB of a Linux main thread. The corpus
/// nests up to the 1024-level depth cap (spec section 4.2); an unoptimized
/// build of the recursive reader needs about 4 KiB a level there (an
/// optimized one under 512 bytes), more than the 2 MiB of a test thread.
const CASE_STACK: usize = 8 << 20;

fn on_big_stack(f: impl FnOnce() -> Result<(), String> + Send + 'static) -> Result<(), String> {
    std::thread::Builder::new()
        .stack_size(CASE_STACK)
        .spawn(f)
        .map_err(|e| format!("cannot start the case's thread: {e}"))?
        .join()
        .unwrap_or_else(|_| Err("the case panicked (see the output above)".into()))
}

/// Spec section 6.5 (total): every byte prefix of every case input (of long
/// inputs, 256 of them), decoded
/// and encoded, gives a value or an error positioned inside the prefix, and
/// never a panic.
fn every_prefix_is_total(inputs: &[(String, Vec<u8>, stc_core::Limits)]) -> Result<(), String> {
    let mut runs = 0usize;
    for (name, bytes, limits) in inputs {
        // Every prefix of ordinary inputs; 256 evenly spread ones of the few
        // long (deeply nested) inputs, whose every prefix would cost O(n²).
        let step = (bytes.len() / 256).max(1);
        for end in (0..=bytes.len()).filter(|e| e % step == 0 || *e == bytes.len()) {
            let prefix = &bytes[..end];
            let outcome = std::panic::catch_unwind(|| {
                let decoded =
                    stc_core::decode_bytes_with(prefix, limits).err().map(|e| e.offset().unwrap_or(usize::MAX));
                let options = stc_core::EncodeOptions::default().limits(*limits);
                let encoded =
                    stc_core::encode_bytes_with(prefix, &options).err().map(|e| e.offset().unwrap_or(usize::MAX));
                (decoded, encoded)
            });
            runs += 2;
            match outcome {
                Err(_) => {
                    return Err(format!("case {name}: the reference panicked on the first {end} bytes of its input"))
                }
                Ok((d, e)) => {
                    if d.into_iter().chain(e).any(|offset| offset > end) {
                        return Err(format!("case {name}: an error offset lies past the end of the {end}-byte prefix"));
                    }
                }
            }
        }
    }
    if runs == 0 {
        return Err("no inputs".into());
    }
    Ok(())
}

/// Whether `text` is `formatted`, or which line differs first and how to fix it.
fn same_text(shown: &str, formatted: &str, text: &str, what: &str) -> Result<(), Failed> {
    if formatted == text {
        return Ok(());
    }
    let line = formatted.lines().zip(text.lines()).take_while(|(a, b)| a == b).count() + 1;
    Err(format!(
        "{shown} is not {what} (first differing line: {line}); \
         run `cargo run -p stc-conformance --bin bless` to rewrite it"
    )
    .into())
}

/// `<category>/<topic>` of a file `…/<category>/<topic>.json`.
fn file_id(path: &Path) -> String {
    path.parent()
        .and_then(|p| p.file_name())
        .map_or_else(|| stem(path), |dir| format!("{}/{}", dir.to_string_lossy(), stem(path)))
}

/// Reads one case file (or seed file: `prefix` "seeds/") and adds its
/// `structure::` and `format::` trials; the parsed file, unless it cannot be read.
fn file_trials(
    trials: &mut Vec<Trial>,
    path: &Path,
    prefix: &str,
    problems_of: fn(&CaseFile) -> Vec<String>,
) -> Option<CaseFile> {
    let file_id = format!("{prefix}{}", file_id(path));
    let shown = display_path(path);
    let (text, file) = match read_file(path) {
        Ok(parsed) => parsed,
        Err(msg) => {
            trials.push(Trial::test(format!("structure::{file_id}"), move || Err(msg.into())));
            return None;
        }
    };
    let mut problems = problems_of(&file);
    problems.extend(placement_problem(path, &file));
    let shown_structure = shown.clone();
    trials.push(Trial::test(format!("structure::{file_id}"), move || {
        if problems.is_empty() {
            Ok(())
        } else {
            Err(format!("{shown_structure}:\n  {}", problems.join("\n  ")).into())
        }
    }));
    let formatted = format_file(&file);
    trials.push(Trial::test(format!("format::{file_id}"), move || {
        same_text(&shown, &formatted, &text, "in the canonical layout")
    }));
    Some(file)
}

/// The files of `dir` ([`case_paths`]); none, and a failing trial `name`, if it cannot be listed.
fn listed(trials: &mut Vec<Trial>, dir: &Path, name: &'static str) -> Vec<PathBuf> {
    case_paths(dir).unwrap_or_else(|e| {
        let msg = format!("cannot list {}: {e}", dir.display());
        trials.push(Trial::test(name, move || Err(msg.into())));
        Vec::new()
    })
}

/// The seed files: their structure and layout, and that the case file each
/// generates (which every runner reads) is what `bless` would write now.
fn seed_trials(trials: &mut Vec<Trial>) {
    for path in listed(trials, &seeds_dir(), "structure::seed-directory") {
        let Some(file) = file_trials(trials, &path, "seeds/", seed_file_problems) else { continue };
        let file_id = file_id(&path);
        let generated = generated_path(&path);
        let want = format_file(&generated_file(&path, &file));
        trials.push(Trial::test(format!("generated::{file_id}"), move || {
            let shown = display_path(&generated);
            let have = std::fs::read_to_string(&generated).map_err(|e| format!("cannot read {shown}: {e}"))?;
            same_text(&shown, &want, &have, "the expansion of its seed file")
        }));
    }
}

fn main() {
    let args = Arguments::from_args();
    let mut trials = Vec::new();
    let paths = listed(&mut trials, &cases_dir(), "structure::case-directory");
    if paths.is_empty() {
        trials.push(Trial::test("structure::corpus-not-empty", || Err("no case files found".into())));
    }
    // name -> files that use it
    let mut names: BTreeMap<String, Vec<String>> = BTreeMap::new();
    // (case name, cited section)
    let mut sections: Vec<(String, String)> = Vec::new();
    // (case name, input bytes, limits)
    let mut inputs = Vec::new();
    for path in paths {
        let file_stem = stem(&path);
        let Some(file) = file_trials(&mut trials, &path, "", structure_problems) else { continue };
        let shown = display_path(&path);
        let category = file.category.clone();
        for case in file.cases {
            sections.push((case.name.clone(), case.spec.clone()));
            inputs.push((case.name.clone(), case.input_bytes(), case.limits()));
            names.entry(case.name.clone()).or_default().push(shown.clone());
            let path = path.clone();
            let category = category.clone();
            let test_name = format!("{category}::{file_stem}::{}", case.name);
            trials.push(Trial::test(test_name, move || {
                on_big_stack(move || check(&path, &category, &case)).map_err(Failed::from)
            }));
        }
    }
    seed_trials(&mut trials);
    trials.push(Trial::test("property::total-on-every-prefix", move || {
        on_big_stack(move || every_prefix_is_total(&inputs)).map_err(Failed::from)
    }));
    trials.push(Trial::test("coverage::schema-error-kinds", || check_schema_error_kinds().map_err(Failed::from)));
    let cited: Vec<(String, String)> = sections;
    trials.push(Trial::test("coverage::spec-sections", move || check_spec_sections(&cited).map_err(Failed::from)));
    let case_names: Vec<String> = names.keys().cloned().collect();
    trials.push(Trial::test("coverage::abnf-rules", move || check_abnf_rules(&case_names).map_err(Failed::from)));
    let duplicates: Vec<String> = names
        .into_iter()
        .filter(|(_, files)| files.len() > 1)
        .map(|(name, files)| format!("{name:?} is used {} times: {}", files.len(), files.join(", ")))
        .collect();
    trials.push(Trial::test("structure::unique-names", move || {
        if duplicates.is_empty() {
            Ok(())
        } else {
            Err(format!("case names must be unique across the corpus:\n  {}", duplicates.join("\n  ")).into())
        }
    }));
    libtest_mimic::run(&args, trials).exit();
}
