//! Insights on the desk (window and browser): a fresh install says what to do next; then the service's
//! figures (an uncovered execution as an alarm) and its charts drawn on canvases, refreshed as
//! prompts open and settle: the prompt open now plotted with how long it waited, rules and runs
//! named in words (ids on hover), day and hour axes that read as dates and clock times and do
//! not overlap at 800×600; a suggestion with its evidence is applied by one click and in force
//! at once.

use assent_core::ScopeKind;
use assent_protocol::{DecisionRequest, SubmitStatus, REQUESTER_TOKEN_FILE};
use fantoccini::Locator;

use super::common::driver::{click, element, text_of, WAIT};
use super::common::ui::Ui;
use super::common::{eventually, shell_request, submit_pending, ASKED_COMMAND};
use super::signed_in;

/// The canvas of chart `testid`: its size in pixels and how many of them are painted.
async fn canvas_of(client: &fantoccini::Client, testid: &str) -> (u64, u64, u64) {
    let script = "const c = document.querySelector(`[data-testid=${arguments[0]}] canvas`);
        if (!c || c.width === 0 || c.height === 0) return null;
        const px = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        let painted = 0;
        for (let i = 3; i < px.length; i += 4) if (px[i] !== 0) painted++;
        return [c.width, c.height, painted];";
    eventually(&format!("chart {testid} to be drawn"), WAIT, || async {
        let answer = client
            .execute(script, vec![serde_json::json!(testid)])
            .await
            .expect("run a script in the page");
        serde_json::from_value::<(u64, u64, u64)>(answer).ok()
    })
    .await
}

/// The names axis of chart `testid` as drawn: its labels, the chart's width, and the least
/// room left between two neighbouring labels (negative: they overlap), measured in the page's
/// own font.
async fn ticks_fit(client: &fantoccini::Client, testid: &str) -> serde_json::Value {
    let script = "const f = document.querySelector(`[data-testid=${arguments[0]}]`);
        if (!f || !f.dataset.ticks) return null;
        const ticks = JSON.parse(f.dataset.ticks);
        const slot = Number(f.dataset.slot);
        const horizontal = !!f.dataset.horizontal;
        const ctx = document.createElement('canvas').getContext('2d');
        ctx.font = \"12px 'DejaVu Sans', system-ui, sans-serif\";
        let room = Infinity, prev = null;
        ticks.forEach((t, i) => {
          if (!t) return;
          const size = horizontal ? 14 : ctx.measureText(t).width;
          if (prev) room = Math.min(room, (i - prev.i) * slot - (prev.size + size) / 2);
          prev = { i, size };
        });
        return { ticks, slot, room: room === Infinity ? 1e9 : room, width: f.getBoundingClientRect().width };";
    eventually(&format!("the ticks of {testid}"), WAIT, || async {
        let answer = client
            .execute(script, vec![serde_json::json!(testid)])
            .await
            .expect("run a script in the page");
        (!answer.is_null()).then_some(answer)
    })
    .await
}

/// The text of `css` in the page, hidden or not (a chart's numbers are read out, not shown).
async fn text_content(client: &fantoccini::Client, css: &str) -> String {
    let answer = client
        .execute(
            "const e = document.querySelector(arguments[0]); return e ? e.textContent : '';",
            vec![serde_json::json!(css)],
        )
        .await
        .expect("run a script in the page");
    answer.as_str().unwrap_or_default().to_owned()
}

/// Insights with one prompt open (`terraform apply` in run-a) after three were asked: the
/// open prompt is plotted with how long it waited, rules and runs are named in words, and the
/// day axis reads as days; the day view as hours.
async fn insights_in_words(client: &fantoccini::Client, rule: &str) {
    let caption = text_of(client, "[data-testid=chart-open-now] figcaption").await;
    assert!(
        caption.starts_with("Open now: 1 prompt waits for you"),
        "the prompt still open is plotted: {caption}"
    );
    let (width, height, painted) = canvas_of(client, "chart-open-now").await;
    assert!(
        width > 100 && height > 50 && painted > 100,
        "the open prompt is drawn: {width}x{height}, {painted} pixels painted"
    );
    let open = text_content(client, "[data-testid=chart-open-now] [data-testid=bars]").await;
    assert!(
        open.contains("terraform") && open.contains("apply") && open.ends_with(" s"),
        "its bar names what it asks and how long it has waited: {open}"
    );
    let legend = text_of(client, "[data-testid=chart-open-now] [data-testid=legend]").await;
    assert!(
        legend.ends_with(" risk"),
        "its colour says its risk, in words: {legend}"
    );
    let axes = element(client, "[data-testid=chart-open-now] [data-testid=plot]")
        .await
        .attr("aria-label")
        .await
        .expect("attribute")
        .unwrap_or_default();
    assert!(
        axes.ends_with("Time waited per prompt"),
        "the chart says what its axes are: {axes}"
    );

    let rules = text_content(client, "[data-testid=chart-rules] [data-testid=bars]").await;
    assert!(
        !rules.contains(rule) && !rules.contains("escalate."),
        "the rules chart names rules in words, not ids: {rules}"
    );
    let legend = text_of(client, "[data-testid=chart-rules] [data-testid=legend]").await;
    assert!(
        legend.contains("Approved") && legend.contains("Nobody answered in time"),
        "the legend is in words: {legend}"
    );
    let row = format!("[data-testid=rule-row][data-rule='{rule}'] [data-testid=rule-name]");
    let name = text_of(client, &row).await;
    assert!(
        name != rule && !name.is_empty(),
        "the table names the rule in words ({name}), its id behind the hover"
    );
    let hover = element(client, &row)
        .await
        .attr("title")
        .await
        .expect("attribute")
        .unwrap_or_default();
    assert_eq!(
        hover,
        format!("Policy rule {rule}"),
        "the rule's id on hover"
    );

    let runs = text_content(client, "[data-testid=chart-runs] [data-testid=bars]").await;
    assert!(
        runs.contains("agent ") && runs.contains("first seen") && runs.contains("run run-a"),
        "a run with a prompt open is named by its agent, first sighting and id: {runs}"
    );

    let days = ticks_fit(client, "chart-per-day").await;
    let ticks: Vec<String> = serde_json::from_value(days["ticks"].clone()).expect("ticks");
    assert!(
        ticks
            .iter()
            .filter(|t| !t.is_empty())
            .all(|t| reads_as_a_day(t)),
        "the day axis reads as days (\"Mon 30 Nov\", \"1 Dec\"), never ISO dates: {ticks:?}"
    );
    assert!(
        ticks.last().is_some_and(|t| !t.is_empty()),
        "today is always labelled: {ticks:?}"
    );
    assert!(
        days["room"].as_f64().is_some_and(|room| room > 0.0),
        "no two day labels overlap: {days}"
    );
    click(client, "[data-testid=range-day]").await;
    let hours = ticks_fit(client, "chart-per-hour").await;
    let ticks: Vec<String> = serde_json::from_value(hours["ticks"].clone()).expect("ticks");
    assert!(
        ticks.iter().filter(|t| !t.is_empty()).count() >= 4
            && ticks
                .iter()
                .filter(|t| !t.is_empty())
                .all(|t| t.len() == 5 && t.ends_with(":00")),
        "the day view's axis reads as hours (14:00): {ticks:?}"
    );
    assert!(
        hours["room"].as_f64().is_some_and(|room| room > 0.0),
        "no two hour labels overlap: {hours}"
    );
    click(client, "[data-testid=range-days]").await;
    text_of(client, "[data-testid=chart-per-day] figcaption").await;
}

/// "Mon 30 Nov" or "1 Dec": a weekday (optional), a day of the month, a month's short name.
fn reads_as_a_day(tick: &str) -> bool {
    const DAYS: [&str; 7] = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let parts: Vec<&str> = tick.split(' ').collect();
    let (date, month) = match parts.as_slice() {
        [weekday, date, month] if DAYS.contains(weekday) => (*date, *month),
        [date, month] => (*date, *month),
        _ => return false,
    };
    date.parse::<u8>().is_ok_and(|d| (1..=31).contains(&d)) && MONTHS.contains(&month)
}

/// The headline figure `name` once it reads `want` (the view refreshes on its own).
async fn figure_reads(client: &fantoccini::Client, name: &str, want: &str) {
    let css = format!("[data-testid=figure-{name}] [data-testid=value]");
    let seen = eventually(&format!("figure {name} to read {want}"), WAIT, || async {
        let text = text_of(client, &css).await;
        (text == want).then_some(text)
    })
    .await;
    assert_eq!(seen, want, "figure {name}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn insights_show_where_prompts_come_from_and_what_ran_without_cover() {
    let ui = Ui::own(crate::SHELL, None).await;
    let (client, requester, reviewer) = (ui.client.clone(), &ui.requester, &ui.reviewer);
    signed_in(&client).await;

    click(&client, "[data-testid=tab-insights]").await;
    let empty = text_of(&client, "[data-testid=insights-empty]").await;
    assert!(
        empty.starts_with("No prompts yet: run assent install claude-code"),
        "a fresh install says what to do next, not empty charts: {empty}"
    );
    assert!(
        client
            .find(Locator::Css(
                "[data-testid=insights-figures] canvas, .chart"
            ))
            .await
            .is_err(),
        "no chart is drawn over no data"
    );

    // While the view is open: run-a asks twice (one approved, one left open), run-b is
    // denied, asks again and is answered by the remembered denial, and runs it anyway.
    let allow_once = DecisionRequest::Approve {
        scope: ScopeKind::Once,
        expires_in_seconds: 900,
        max_uses: None,
        reason: None,
        path_patterns: None,
    };
    let approved = submit_pending(
        requester,
        &shell_request("run-a", ASKED_COMMAND, "/work/shop"),
    )
    .await;
    reviewer
        .decide(&approved, &allow_once)
        .await
        .expect("approve");
    let cloud = submit_pending(
        requester,
        &shell_request("run-a", "terraform apply", "/work/infra"),
    )
    .await;
    let denied = submit_pending(
        requester,
        &shell_request("run-b", ASKED_COMMAND, "/work/shop"),
    )
    .await;
    let deny = DecisionRequest::Deny {
        reason: "not in this run".to_owned(),
    };
    reviewer.decide(&denied, &deny).await.expect("deny");
    let mut again = shell_request("run-b", ASKED_COMMAND, "/work/shop");
    again.idempotency_key = Some("k-again".to_owned());
    let answer = requester.submit(&again).await.expect("submit again");
    assert_eq!(
        answer.status,
        SubmitStatus::Denied,
        "the run's earlier denial answers the repeat"
    );
    let token = std::fs::read_to_string(ui.data_dir().join(REQUESTER_TOKEN_FILE))
        .expect("the requester token");
    let url = ui.url();
    tokio::task::spawn_blocking(move || {
        let agent = assent_client::blocking::Client::new(&url, token.trim()).expect("agent");
        let deadline = std::time::Instant::now() + WAIT;
        agent
            .record_executed("run-b", "k-again", None, deadline)
            .expect("report the execution");
    })
    .await
    .expect("the blocking call");

    let metrics = reviewer.metrics().await.expect("the service's metrics");
    assert_eq!(
        (
            metrics.prompts_opened,
            metrics.remembered_denials,
            metrics.uncovered_executions
        ),
        (3, 1, 1),
        "the service counted three prompts, a remembered denial and an uncovered execution"
    );
    // The remembered denial settles no prompt, so the view refreshes on a prompt opening or
    // settling, or on Refresh.
    click(&client, "[data-testid=insights-refresh]").await;
    figure_reads(&client, "uncovered", "1").await;
    figure_reads(&client, "prompts", "3").await;
    figure_reads(&client, "remembered-denials", "1").await;
    figure_reads(&client, "rubber-stamps", &metrics.rubber_stamps.to_string()).await;
    figure_reads(
        &client,
        "per-run",
        &format!("{:.1}", metrics.prompts_per_run.mean),
    )
    .await;
    let alarm = element(&client, "[data-testid=figure-uncovered]")
        .await
        .attr("data-alarm")
        .await
        .expect("attribute");
    assert_eq!(
        alarm.as_deref(),
        Some("true"),
        "something ran without cover: the figure is highlighted"
    );

    for chart in [
        "chart-per-day",
        "chart-rules",
        "chart-profiles",
        "chart-approve-rate",
        "chart-time-to-decide",
        "chart-runs",
    ] {
        let (width, height, painted) = canvas_of(&client, chart).await;
        assert!(
            width > 100 && height > 50 && painted > 100,
            "{chart} is drawn on a canvas: {width}x{height}, {painted} pixels painted"
        );
    }
    let legend = text_of(&client, "[data-testid=chart-rules] [data-testid=legend]").await;
    assert!(
        legend.contains("Approved") && legend.contains("Denied"),
        "the chart's legend is page text: {legend}"
    );

    let rule = reviewer
        .approval(&approved, None)
        .await
        .expect("the approval")
        .facts
        .rule;
    let rows = client
        .find_all(Locator::Css("[data-testid=rule-row]"))
        .await
        .expect("rule rows");
    let mut shown = Vec::new();
    for row in rows {
        let name = row
            .attr("data-rule")
            .await
            .expect("attribute")
            .unwrap_or_default();
        let rate = row
            .find(Locator::Css("[data-testid=rule-rate]"))
            .await
            .expect("rate")
            .text()
            .await
            .expect("text");
        shown.push((name, rate));
    }
    assert!(
        shown.contains(&(rule.clone(), "50 %".to_owned())),
        "{rule} asked twice, approved once and denied once: {shown:?}"
    );
    let runs = text_of(&client, "[data-testid=chart-runs] figcaption").await;
    assert!(runs.starts_with("Runs with the most prompts"), "{runs}");
    insights_in_words(&client, &rule).await;
    let window = client.get_window_rect().await.expect("the window's size");
    ui.screenshot("insights.png");
    client
        .execute(
            "document.querySelector('[data-testid=chart-rules]').scrollIntoView();",
            Vec::new(),
        )
        .await
        .expect("scroll to the rules");
    ui.screenshot("insights-rules-runs.png");
    client
        .set_window_size(800, 600)
        .await
        .expect("resize the window");
    let overflow = eventually("the window to be 800 px wide", WAIT, || async {
        let m = client
            .execute(
                "return window.innerWidth <= 800 ? document.documentElement.scrollWidth - document.documentElement.clientWidth : null;",
                Vec::new(),
            )
            .await
            .expect("measure the page");
        m.as_i64()
    })
    .await;
    assert_eq!(overflow, 0, "no horizontal overflow in Insights at 800×600");
    for chart in ["chart-open-now", "chart-per-day"] {
        eventually(
            &format!("{chart} to be redrawn at 800 px"),
            WAIT,
            || async {
                let fit = ticks_fit(&client, chart).await;
                (fit["width"].as_f64().is_some_and(|w| w <= 800.0)).then_some(())
            },
        )
        .await;
        let fit = ticks_fit(&client, chart).await;
        assert!(
            fit["room"].as_f64().is_some_and(|room| room > 0.0),
            "at 800 px the labels of {chart} do not overlap: {fit}"
        );
    }
    ui.screenshot("insights-800x600.png");
    client
        .set_window_size(window.2 as u32, window.3 as u32)
        .await
        .expect("restore the window's size");

    // A prompt settling elsewhere refreshes the open view.
    reviewer
        .decide(&cloud, &deny)
        .await
        .expect("deny the open one");
    figure_reads(&client, "prompts", "3").await;
    eventually("the open prompt to count as denied", WAIT, || async {
        let context = text_of(&client, "[data-testid=per-day-context]").await;
        context
            .starts_with("In the last 14 days: 1 approved, 2 denied")
            .then_some(())
    })
    .await;
    let none_open = text_of(&client, "[data-testid=chart-open-now-empty]").await;
    assert!(
        none_open.starts_with("No prompt is waiting for you now"),
        "once settled, the open prompt leaves the open-now chart, which says so: {none_open}"
    );
    assert!(
        client
            .find(Locator::Css("[data-testid=js-error]"))
            .await
            .is_err(),
        "uPlot runs under the CSP and the frozen Object.prototype without an error"
    );

    // Three runs in the repo `web` each ask once for the same verifier, and each is approved:
    // Insights suggests trusting `web`, with the evidence, and one click applies it.
    for run in ["run-w1", "run-w2", "run-w3"] {
        let mut request = shell_request(run, ASKED_COMMAND, "/work/web");
        request.context.repo = Some("web".to_owned());
        let id = submit_pending(requester, &request).await;
        reviewer.decide(&id, &allow_once).await.expect("approve");
    }
    click(&client, "[data-testid=insights-refresh]").await;
    let row = "[data-testid=suggestion][data-change=trust_repo]";
    let evidence = text_of(&client, &format!("{row} [data-testid=suggestion-evidence]")).await;
    assert!(
        evidence.contains("approved 3 of 3 times") && evidence.contains("in web"),
        "the suggestion carries its evidence: {evidence}"
    );
    let change = text_of(&client, &format!("{row} [data-testid=suggestion-change]")).await;
    assert!(
        change.starts_with("Trust web"),
        "and says what it changes: {change}"
    );
    ui.screenshot("insights-suggestion.png");
    click(&client, &format!("{row} [data-testid=suggestion-apply]")).await;
    let outcome = eventually("the apply to be confirmed", WAIT, || async {
        let css = format!("{row} [data-testid=suggestion-outcome][data-outcome=applied]");
        match client.find(Locator::Css(&css)).await {
            Ok(found) => found.text().await.ok(),
            Err(_) => None,
        }
    })
    .await;
    assert!(
        outcome.starts_with("Applied: trusted_repos += web. In force now"),
        "the window says what was applied: {outcome}"
    );
    let written = std::fs::read_to_string(ui.data_dir().join("policy.toml"))
        .expect("the service created its policy file");
    assert!(
        written.contains("\"web\""),
        "the click wrote the change into the service's policy file: {written}"
    );
    let mut after = shell_request("run-w4", ASKED_COMMAND, "/work/web");
    after.context.repo = Some("web".to_owned());
    let answer = requester.submit(&after).await.expect("submit");
    assert_eq!(
        answer.status,
        SubmitStatus::Allowed,
        "the applied suggestion is in force without a restart: {answer:?}"
    );
    assert!(
        client
            .find(Locator::Css(&format!(
                "{row} [data-testid=suggestion-apply]"
            )))
            .await
            .is_err(),
        "once applied, the suggestion is no longer offered"
    );
    ui.screenshot("insights-suggestion-applied.png");

    client.close().await.expect("end the session");
}
