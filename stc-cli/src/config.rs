//! `--config FILE` (or `STC_CONFIG`): the services' options from one TOML
//! file a deployment can keep.
//!
//! The file has a table per subcommand, keyed by the long flag names:
//!
//! ```toml
//! [proxy]
//! upstream = "http://127.0.0.1:8080"
//! listen = "127.0.0.1:8000"
//! shutdown-grace = 20
//!
//! [mcp-proxy]
//! listen = "127.0.0.1:8001"
//! store = "redis://127.0.0.1:6379"
//! ```
//!
//! A value from the file is handed to the flag through the flag's
//! environment variable, so it is parsed and checked by the very same code
//! as the flag, and the order of precedence is: the command line, then the
//! environment, then the file, then the default. Only the running
//! subcommand's table is applied; a table or key that names no subcommand
//! or flag, or a flag that has no environment variable, is an error that
//! names the file, line and column, and the service does not start.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::Path;

use toml::Spanned;

/// The environment variable that names the configuration file.
pub const CONFIG_ENV: &str = "STC_CONFIG";

type Table = BTreeMap<Spanned<String>, Spanned<toml::Value>>;

/// Reads the configuration file named by `--config` in `argv` (or by
/// `STC_CONFIG`), if any, and sets the environment variables of the running
/// subcommand's flags that the environment does not already set. Must run
/// before any thread is started (it sets environment variables) and before
/// clap parses `argv`.
pub fn apply(argv: &[OsString], cli: &clap::Command) -> Result<(), String> {
    let Some(path) = config_path(argv) else { return Ok(()) };
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let values = resolve(&text, subcommand(argv).as_deref(), cli).map_err(|e| format!("{}:{e}", path.display()))?;
    for (env, value) in values {
        if std::env::var_os(&env).is_none() {
            // Single-threaded here: main calls this first.
            std::env::set_var(env, value);
        }
    }
    Ok(())
}

/// What the file sets for `subcommand`: (environment variable, value) pairs,
/// or `LINE:COLUMN: message` for the first thing wrong in it.
pub fn resolve(text: &str, subcommand: Option<&str>, cli: &clap::Command) -> Result<Vec<(String, String)>, String> {
    let at = |offset: usize| {
        let before = &text[..offset.min(text.len())];
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        format!("{line}:{column}")
    };
    let tables: BTreeMap<Spanned<String>, Spanned<Table>> = toml::from_str(text).map_err(|e| {
        let place = e.span().map_or_else(|| "1:1".to_string(), |s| at(s.start));
        format!("{place}: {}", e.message())
    })?;
    let mut values = Vec::new();
    for (name, table) in &tables {
        let Some(command) = cli.find_subcommand(name.get_ref()) else {
            return Err(format!("{}: [{}] names no stc subcommand", at(name.span().start), name.get_ref()));
        };
        if Some(name.get_ref().as_str()) != subcommand {
            continue;
        }
        for (key, value) in table.get_ref() {
            let place = at(key.span().start);
            let flag = command
                .get_arguments()
                .find(|a| a.get_long() == Some(key.get_ref().as_str()))
                .ok_or_else(|| format!("{place}: `{}` is not an option of `stc {}`", key.get_ref(), name.get_ref()))?;
            let env = flag.get_env().and_then(|e| e.to_str()).ok_or_else(|| {
                format!(
                    "{place}: --{} cannot be set from a configuration file; pass it on the command line",
                    key.get_ref()
                )
            })?;
            let text = match value.get_ref() {
                toml::Value::String(s) => s.clone(),
                toml::Value::Integer(i) => i.to_string(),
                toml::Value::Float(f) => f.to_string(),
                toml::Value::Boolean(b) => b.to_string(),
                other => {
                    return Err(format!(
                        "{}: --{} takes a string, number or boolean, not a {}",
                        at(value.span().start),
                        key.get_ref(),
                        other.type_str()
                    ))
                }
            };
            values.push((env.to_string(), text));
        }
    }
    Ok(values)
}

/// The value of `--config PATH` / `--config=PATH`, or of `STC_CONFIG`.
fn config_path(argv: &[OsString]) -> Option<std::path::PathBuf> {
    let mut args = argv.iter().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--" {
            break;
        }
        if arg == "--config" {
            return args.next().map(|p| Path::new(p).to_path_buf());
        }
        if let Some(path) = arg.to_str().and_then(|a| a.strip_prefix("--config=")) {
            return Some(path.into());
        }
    }
    std::env::var_os(CONFIG_ENV).filter(|p| !p.is_empty()).map(Into::into)
}

/// The subcommand `argv` runs: its first argument that is not a flag (or a
/// `--config` value).
fn subcommand(argv: &[OsString]) -> Option<String> {
    let mut args = argv.iter().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--config" {
            args.next();
            continue;
        }
        let arg = arg.to_str()?;
        if !arg.starts_with('-') {
            return Some(arg.to_string());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::{Arg, ArgAction, Command};

    fn cli() -> Command {
        Command::new("stc")
            .subcommand(
                Command::new("proxy")
                    .arg(Arg::new("upstream").long("upstream").env("STC_UPSTREAM"))
                    .arg(
                        Arg::new("allow-remote")
                            .long("allow-remote")
                            .action(ArgAction::SetTrue)
                            .env("STC_ALLOW_REMOTE"),
                    )
                    .arg(Arg::new("no-env").long("no-env")),
            )
            .subcommand(Command::new("serve").arg(Arg::new("port").long("port").env("STC_PORT")))
    }

    #[test]
    fn the_running_subcommands_table_becomes_environment_values() {
        let text = "[proxy]\nupstream = \"http://127.0.0.1:1\"\nallow-remote = true\n[serve]\nport = 7\n";
        let got = resolve(text, Some("proxy"), &cli()).unwrap();
        assert_eq!(
            got,
            [
                ("STC_ALLOW_REMOTE".to_string(), "true".to_string()),
                ("STC_UPSTREAM".into(), "http://127.0.0.1:1".into())
            ]
        );
        assert_eq!(resolve(text, Some("serve"), &cli()).unwrap(), [("STC_PORT".to_string(), "7".to_string())]);
    }

    #[test]
    fn mistakes_name_their_line_and_column() {
        let cases = [
            ("[proxy]\nupstrem = \"x\"\n", "2:1: `upstrem` is not an option of `stc proxy`"),
            ("[prxy]\n", "1:2: [prxy] names no stc subcommand"),
            (
                "[proxy]\nno-env = \"x\"\n",
                "2:1: --no-env cannot be set from a configuration file; pass it on the command line",
            ),
            ("[proxy]\nupstream = [1]\n", "2:12: --upstream takes a string, number or boolean, not a array"),
        ];
        for (text, want) in cases {
            assert_eq!(resolve(text, Some("proxy"), &cli()).unwrap_err(), want, "{text}");
        }
        let syntax = resolve("[proxy]\nupstream = \n", Some("proxy"), &cli()).unwrap_err();
        assert!(syntax.starts_with("2:"), "{syntax}");
        // A table that is not a table of keys.
        assert!(resolve("proxy = 1\n", Some("proxy"), &cli()).is_err());
    }

    #[test]
    fn the_path_comes_from_the_flag_in_either_form() {
        let argv = |a: &[&str]| a.iter().map(OsString::from).collect::<Vec<_>>();
        assert_eq!(config_path(&argv(&["stc", "--config", "a.toml", "proxy"])), Some("a.toml".into()));
        assert_eq!(config_path(&argv(&["stc", "proxy", "--config=b.toml"])), Some("b.toml".into()));
        assert_eq!(subcommand(&argv(&["stc", "--config", "a.toml", "proxy", "--listen", "x"])), Some("proxy".into()));
        // After `--` the arguments are a child's, not ours.
        assert_eq!(subcommand(&argv(&["stc", "mcp-proxy", "--", "x", "--config", "c"])), Some("mcp-proxy".into()));
    }
}
