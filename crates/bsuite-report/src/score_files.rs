//! The report's scores as data beside its figures: `scores.csv`, one row per agent, seed
//! and experiment or key issue, and `scores.json`, each agent's scores as `score --json`
//! gives them (means over seeds, every seed's own, and the intervals).

use std::fmt::Write as _;

use bsuite_analysis::experiments::in_plot_order;
use bsuite_analysis::plot::RADAR_TAGS;
use bsuite_analysis::score_json::seeded_json;
use bsuite_analysis::seeds::SeededSummary;
use bsuite_analysis::stats::Bootstrap;
use bsuite_analysis::Score;

/// File name of the CSV of scores.
pub const CSV: &str = "scores.csv";
/// File name of the JSON of scores.
pub const JSON: &str = "scores.json";

/// A CSV field, quoted where it holds a comma, quote or line break (RFC 4180).
fn field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

/// `agent,seed,kind,name,score,finished`: a row per agent, seed (empty where the results
/// record none) and experiment (`kind` `experiment`, in bsuite's plot order, `finished`
/// whether every run reached the episode count) or key issue (`kind` `tag`); `score` empty
/// where bsuite's is NaN or the agent has no data.
pub(crate) fn csv(agents: &[SeededSummary]) -> String {
    let mut s = String::from("agent,seed,kind,name,score,finished\n");
    let value = |score: Score| score.value().map_or(String::new(), |v| format!("{v}"));
    for agent in agents {
        for (seed, summary) in &agent.seeds {
            let seed = seed.map_or(String::new(), |s| s.to_string());
            let name = field(&agent.agent);
            for experiment in in_plot_order() {
                let Some(e) = summary.experiment(experiment.name) else {
                    continue;
                };
                let _ = writeln!(
                    s,
                    "{name},{seed},experiment,{},{},{}",
                    experiment.name,
                    value(e.score),
                    e.progress.finished()
                );
            }
            for tag in RADAR_TAGS {
                let score = summary.tag(tag).map_or(String::new(), |t| value(t.score));
                let _ = writeln!(s, "{name},{seed},tag,{},{score},", tag.as_str());
            }
        }
    }
    s
}

/// `{"format": ..., "agents": {name: scores}}`, each agent's scores as `score --json`
/// writes them for a multi-seed directory, with the report's bootstrap.
pub(crate) fn json(agents: &[SeededSummary]) -> String {
    let bootstrap = Bootstrap::default();
    let mut all = serde_json::Map::new();
    for agent in agents {
        all.insert(agent.agent.clone(), seeded_json(agent, &bootstrap));
    }
    let value = serde_json::json!({
        "format": "bsuite-rs report scores 1",
        "agents": all,
    });
    serde_json::to_string_pretty(&value).unwrap_or_default() + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_with_commas_or_quotes_are_quoted() {
        assert_eq!(field("dqn"), "dqn");
        assert_eq!(field("a,b"), "\"a,b\"");
        assert_eq!(field("say \"hi\""), "\"say \"\"hi\"\"\"");
    }
}
