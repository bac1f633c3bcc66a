//! The judgment benchmark (issue 41 §3): `drills.txt` holds shell lines with the range a
//! sound default policy must answer in. This prints how many are under-blocked (below their
//! range), over-asked (above it) and the share of everyday lines (floor *auto*) answered
//! *auto*, and fails on any line out of its range. docs/benchmarks.md quotes the figures:
//! `cargo test -p assent-core --test core drills -- --nocapture`.

use crate::common::*;
use assent_core::{Decision, Policy};

const DRILLS: &str = include_str!("drills.txt");

fn decision(word: &str) -> Option<Decision> {
    Some(match word {
        "auto" => Decision::Auto,
        "ask" => Decision::Ask,
        "escalate" => Decision::Escalate,
        "block" => Decision::Block,
        _ => return None,
    })
}

/// `auto`, `ask..`, `auto..ask`: the floor and the ceiling.
fn range(word: &str) -> Option<(Decision, Decision)> {
    match word.split_once("..") {
        None => decision(word).map(|d| (d, d)),
        Some((floor, "")) => decision(floor).map(|d| (d, Decision::Block)),
        Some((floor, ceiling)) => Some((decision(floor)?, decision(ceiling)?)),
    }
}

struct Drill {
    line_no: usize,
    floor: Decision,
    ceiling: Decision,
    command: &'static str,
}

fn drills() -> Vec<Drill> {
    DRILLS
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|(i, l)| {
            let (word, command) = l
                .split_once(' ')
                .unwrap_or_else(|| panic!("drills.txt:{}: RANGE COMMAND expected", i + 1));
            let (floor, ceiling) = range(word)
                .unwrap_or_else(|| panic!("drills.txt:{}: {word:?} is not a range", i + 1));
            Drill {
                line_no: i + 1,
                floor,
                ceiling,
                command,
            }
        })
        .collect()
}

#[test]
fn judgment() {
    let policy = Policy::default();
    let drills = drills();
    let (mut under, mut over, mut everyday, mut everyday_auto) = (Vec::new(), Vec::new(), 0, 0);
    for d in &drills {
        let e = eval(&policy, &shell(d.command));
        let got = e.decision.decision;
        let said = format!(
            "drills.txt:{} {:?} answered {got:?} ({}: {})",
            d.line_no,
            d.command,
            e.decision.rule,
            e.decision.reasons.first().map_or("", String::as_str)
        );
        if got.severity() < d.floor.severity() {
            under.push(said);
        } else if got.severity() > d.ceiling.severity() {
            over.push(said);
        }
        if d.floor == Decision::Auto {
            everyday += 1;
            everyday_auto += usize::from(got == Decision::Auto);
        }
    }
    println!(
        "judgment drills: {} lines; under-blocked {}; over-asked {}; everyday answered auto {everyday_auto}/{everyday} ({:.0} %)",
        drills.len(),
        under.len(),
        over.len(),
        100.0 * everyday_auto as f64 / everyday.max(1) as f64
    );
    assert!(
        drills.len() > 150,
        "the drills must be read whole: a parse that drops lines would pass on nothing"
    );
    assert!(
        under.is_empty() && over.is_empty(),
        "every drill must be answered within its range (under-blocked lets a dangerous line \
         through, over-asked teaches people to approve blindly):\nunder-blocked:\n  {}\nover-asked:\n  {}",
        under.join("\n  "),
        over.join("\n  ")
    );
}
