//! Where the prompts come from, as a pure tally over stored facts: per rule and per command
//! profile, prompts, approve and deny rates, time to decide, rubber stamps and remembered
//! denials; prompts per run.

use std::collections::BTreeMap;

use assent_protocol::{DecisionTimes, PromptStats, PromptsPerRun, Resolution};

/// An approval decided this fast after its prompt opened was not read: a rubber stamp.
pub const RUBBER_STAMP_MICROS: i64 = 2_000_000;

/// One prompt, as far as fatigue goes.
#[derive(Debug, Clone)]
pub struct PromptFact {
    pub rule: String,
    pub profile: Option<String>,
    pub run_id: String,
    pub resolution: Option<Resolution>,
    /// Microseconds from opening to a person's decision.
    pub decided_after_us: Option<i64>,
}

/// One request answered by a remembered denial.
#[derive(Debug, Clone)]
pub struct RememberedFact {
    pub rule: String,
    pub profile: Option<String>,
}

/// What the tally comes to.
#[derive(Debug, Default)]
pub struct Fatigue {
    pub by_rule: BTreeMap<String, PromptStats>,
    pub by_profile: BTreeMap<String, PromptStats>,
    pub prompts_per_run: PromptsPerRun,
    pub rubber_stamps: u64,
    pub remembered_denials: u64,
}

#[derive(Default)]
struct Acc {
    stats: PromptStats,
    waits: Vec<i64>,
}

impl Acc {
    fn add(&mut self, fact: &PromptFact) {
        let s = &mut self.stats;
        s.prompts += 1;
        match fact.resolution {
            Some(Resolution::Approved) => s.approved += 1,
            Some(Resolution::Denied) => s.denied += 1,
            Some(Resolution::TimedOut) => s.timed_out += 1,
            Some(Resolution::Cancelled) | None => {}
        }
        let decided = matches!(
            fact.resolution,
            Some(Resolution::Approved | Resolution::Denied)
        );
        if let (true, Some(us)) = (decided, fact.decided_after_us) {
            self.waits.push(us);
            if fact.resolution == Some(Resolution::Approved) && us <= RUBBER_STAMP_MICROS {
                s.rubber_stamps += 1;
            }
        }
    }

    fn finish(mut self) -> PromptStats {
        let decided = self.stats.approved + self.stats.denied;
        if decided > 0 {
            self.stats.approve_rate = self.stats.approved as f64 / decided as f64;
            self.stats.deny_rate = self.stats.denied as f64 / decided as f64;
        }
        self.waits.sort_unstable();
        self.stats.time_to_decide_seconds = decision_times(&self.waits);
        self.stats
    }
}

/// Tallies prompts and remembered denials.
pub fn tally(prompts: &[PromptFact], remembered: &[RememberedFact]) -> Fatigue {
    let mut by_rule: BTreeMap<String, Acc> = BTreeMap::new();
    let mut by_profile: BTreeMap<String, Acc> = BTreeMap::new();
    let mut per_run: BTreeMap<&str, u64> = BTreeMap::new();
    for fact in prompts {
        by_rule.entry(fact.rule.clone()).or_default().add(fact);
        if let Some(profile) = &fact.profile {
            by_profile.entry(profile.clone()).or_default().add(fact);
        }
        *per_run.entry(fact.run_id.as_str()).or_default() += 1;
    }
    let mut by_rule: BTreeMap<String, PromptStats> =
        by_rule.into_iter().map(|(k, a)| (k, a.finish())).collect();
    let mut by_profile: BTreeMap<String, PromptStats> = by_profile
        .into_iter()
        .map(|(k, a)| (k, a.finish()))
        .collect();
    for fact in remembered {
        by_rule
            .entry(fact.rule.clone())
            .or_default()
            .remembered_denials += 1;
        if let Some(profile) = &fact.profile {
            by_profile
                .entry(profile.clone())
                .or_default()
                .remembered_denials += 1;
        }
    }
    let runs = per_run.len() as u64;
    let total: u64 = per_run.values().sum();
    Fatigue {
        rubber_stamps: by_rule.values().map(|s| s.rubber_stamps).sum(),
        remembered_denials: remembered.len() as u64,
        prompts_per_run: PromptsPerRun {
            runs,
            mean: if runs == 0 {
                0.0
            } else {
                total as f64 / runs as f64
            },
            max: per_run.values().copied().max().unwrap_or(0),
        },
        by_rule,
        by_profile,
    }
}

/// Mean and percentiles of sorted waits in microseconds, as seconds.
pub fn decision_times(sorted_us: &[i64]) -> DecisionTimes {
    let seconds = |us: i64| us as f64 / 1_000_000.0;
    let at = |q: f64| {
        let last = sorted_us.len().saturating_sub(1);
        let index = ((last as f64) * q).round() as usize;
        sorted_us.get(index.min(last)).copied().map_or(0.0, seconds)
    };
    let total: i64 = sorted_us.iter().sum();
    DecisionTimes {
        count: sorted_us.len() as u64,
        mean: if sorted_us.is_empty() {
            0.0
        } else {
            seconds(total) / sorted_us.len() as f64
        },
        p50: at(0.5),
        p90: at(0.9),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prompt(rule: &str, run: &str, resolution: Option<Resolution>, after_s: i64) -> PromptFact {
        PromptFact {
            rule: rule.to_owned(),
            profile: (rule == "profile.maven-test").then(|| "maven-test".to_owned()),
            run_id: run.to_owned(),
            resolution,
            decided_after_us: resolution.map(|_| after_s * 1_000_000),
        }
    }

    #[test]
    fn the_tally_shows_where_prompts_come_from() {
        let prompts = [
            prompt("profile.maven-test", "r-1", Some(Resolution::Approved), 1),
            prompt("profile.maven-test", "r-1", Some(Resolution::Approved), 30),
            prompt("profile.maven-test", "r-2", Some(Resolution::Denied), 10),
            prompt("ask.network", "r-2", Some(Resolution::TimedOut), 900),
            prompt("ask.network", "r-2", None, 0),
        ];
        let remembered = [RememberedFact {
            rule: "ask.network".to_owned(),
            profile: None,
        }];
        let f = tally(&prompts, &remembered);
        let maven = &f.by_rule["profile.maven-test"];
        assert_eq!(
            maven.prompts, 3,
            "three prompts came from the maven-test rule"
        );
        assert!(
            (maven.approve_rate - 2.0 / 3.0).abs() < 1e-9,
            "two of three decided were approved"
        );
        assert_eq!(
            maven.rubber_stamps, 1,
            "the 1 s approval was a rubber stamp, the 30 s one not"
        );
        assert_eq!(
            maven.time_to_decide_seconds.p50, 10.0,
            "the median of 1, 10 and 30 s"
        );
        assert_eq!(
            f.by_profile["maven-test"].prompts, 3,
            "the profile view sees the same"
        );
        let network = &f.by_rule["ask.network"];
        assert_eq!(
            network.timed_out, 1,
            "a timeout is neither an approval nor a denial"
        );
        assert_eq!(network.approve_rate, 0.0, "nothing decided: no rate");
        assert_eq!(
            network.remembered_denials, 1,
            "remembered denials count per rule"
        );
        assert_eq!(f.prompts_per_run.runs, 2, "two runs had prompts");
        assert_eq!(f.prompts_per_run.max, 3, "r-2 had three");
        assert_eq!(f.prompts_per_run.mean, 2.5, "five prompts over two runs");
        assert_eq!(f.rubber_stamps, 1, "one rubber stamp overall");
    }
}
