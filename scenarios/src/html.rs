//! `regroup run <name> --seed N --html FILE`: one self-contained HTML page (inline SVG, no
//! scripts or external files) showing the run over simulated time — a lane per member with its
//! epoch and owned tasks or partitions, a lane per broker with its down and fenced periods,
//! bands for the faults, and the violation if there is one. Hover a segment for its details.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use coordinator::events::EventKind as ClusterKind;
use members::observer::EventKind as ClientKind;
use sim::event::{FaultEvent, SimEventKind};

use crate::run::ScenarioRun;

const LEFT: f64 = 260.0;
const WIDTH: f64 = 1400.0;
const LANE: f64 = 22.0;

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// One coloured interval of a lane.
struct Segment {
    from: i64,
    to: i64,
    label: String,
    title: String,
    colour: String,
}

fn epoch_colour(epoch: i32) -> String {
    if epoch < 0 {
        return "#bbbbbb".into();
    }
    let hue = (epoch as i64 * 47) % 360;
    format!("hsl({hue},60%,70%)")
}

/// The page for a run (its event log must have been kept).
pub fn timeline(run: &ScenarioRun) -> String {
    let log = &run.outcome.log;
    let end = run.outcome.sim_ms.max(1);
    let x = |t: i64| LEFT + (t.clamp(0, end) as f64 / end as f64) * WIDTH;

    // Member lanes: one segment per ownership snapshot, until the next one.
    let mut members: BTreeMap<String, Vec<Segment>> = BTreeMap::new();
    // Broker lanes.
    let mut brokers: BTreeMap<String, Vec<Segment>> = BTreeMap::new();
    let mut fenced_since: BTreeMap<i32, i64> = BTreeMap::new();
    let mut down_since: BTreeMap<String, i64> = BTreeMap::new();
    // Fault bands: window -> (start, end, name, hosts).
    let mut bands: BTreeMap<usize, (i64, i64, String, String)> = BTreeMap::new();
    let close = |lane: &mut Vec<Segment>, t: i64| {
        if let Some(last) = lane.last_mut()
            && last.to == i64::MAX
        {
            last.to = t;
        }
    };
    for e in log {
        match &e.kind {
            SimEventKind::Client { client, kind, .. } => {
                let (epoch, items, standby) = match kind {
                    ClientKind::OwnedTasks {
                        epoch,
                        active,
                        standby,
                        ..
                    } => (
                        *epoch,
                        active.iter().map(|t| t.to_string()).collect::<Vec<_>>(),
                        standby.iter().map(|t| t.to_string()).collect::<Vec<_>>(),
                    ),
                    ClientKind::OwnedPartitions {
                        generation,
                        partitions,
                    } => (
                        *generation,
                        partitions.iter().map(|p| p.to_string()).collect(),
                        Vec::new(),
                    ),
                    ClientKind::Stopped { .. } => {
                        if let Some(lane) = members.get_mut(&client.name) {
                            close(lane, e.at_ms);
                        }
                        continue;
                    }
                    _ => continue,
                };
                let lane = members.entry(client.name.clone()).or_default();
                close(lane, e.at_ms);
                let mut title = format!(
                    "{} at {} ms: epoch {epoch}, active [{}]",
                    client.name,
                    e.at_ms,
                    items.join(", ")
                );
                if !standby.is_empty() {
                    let _ = write!(title, ", standby [{}]", standby.join(", "));
                }
                lane.push(Segment {
                    from: e.at_ms,
                    to: i64::MAX,
                    label: format!("e{epoch} {}", items.join(" ")),
                    title,
                    colour: epoch_colour(epoch),
                });
            }
            SimEventKind::Cluster { kind, .. } => match kind {
                ClusterKind::BrokerFenced { broker, .. } => {
                    fenced_since.entry(*broker).or_insert(e.at_ms);
                }
                ClusterKind::BrokerUnfenced { broker, epoch } => {
                    if let Some(from) = fenced_since.remove(broker) {
                        brokers
                            .entry(format!("broker-{broker}"))
                            .or_default()
                            .push(Segment {
                                from,
                                to: e.at_ms,
                                label: "fenced".into(),
                                title: format!(
                                    "broker {broker} fenced {from}-{} ms (unfenced at epoch {epoch})",
                                    e.at_ms
                                ),
                                colour: "#f4a259".into(),
                            });
                    }
                }
                _ => {}
            },
            SimEventKind::Fault(f) => match f {
                FaultEvent::Injected {
                    window,
                    fault,
                    hosts,
                    ..
                } => {
                    bands.insert(
                        *window,
                        (e.at_ms, e.at_ms, fault.to_string(), hosts.join(", ")),
                    );
                    if matches!(*fault, "crash" | "silent-death" | "controlled-shutdown") {
                        for h in hosts {
                            down_since.entry(h.clone()).or_insert(e.at_ms);
                        }
                    }
                }
                FaultEvent::Healed { window, hosts, .. } => {
                    if let Some(b) = bands.get_mut(window) {
                        b.1 = e.at_ms;
                    }
                    for h in hosts {
                        if let Some(from) = down_since.remove(h) {
                            push_down(&mut brokers, &mut members, h, from, e.at_ms);
                        }
                    }
                }
                FaultEvent::AllHealed { restarted } => {
                    for h in restarted {
                        if let Some(from) = down_since.remove(h) {
                            push_down(&mut brokers, &mut members, h, from, e.at_ms);
                        }
                    }
                }
                FaultEvent::Skipped { .. } => {}
            },
            _ => {}
        }
    }
    for (broker, from) in fenced_since {
        brokers
            .entry(format!("broker-{broker}"))
            .or_default()
            .push(Segment {
                from,
                to: end,
                label: "fenced".into(),
                title: format!("broker {broker} fenced from {from} ms"),
                colour: "#f4a259".into(),
            });
    }
    for (h, from) in down_since {
        push_down(&mut brokers, &mut members, &h, from, end);
    }

    let lanes: Vec<(String, Vec<Segment>)> = brokers.into_iter().chain(members).collect();
    let top = 60.0;
    let height = top + LANE * lanes.len() as f64 + 40.0;
    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{}" height="{height}" font-family="monospace" font-size="11">"#,
        LEFT + WIDTH + 20.0
    );
    // Time axis every 5 s.
    let mut t = 0;
    while t <= end {
        let _ = writeln!(
            svg,
            r##"<line x1="{0}" y1="{1}" x2="{0}" y2="{2}" stroke="#eeeeee"/><text x="{0}" y="{3}" fill="#666">{4}s</text>"##,
            x(t),
            top - 5.0,
            height - 30.0,
            top - 10.0,
            t / 1000
        );
        t += 5_000;
    }
    for (i, (from, to, name, hosts)) in bands.values().enumerate() {
        let w = (x(*to) - x(*from)).max(2.0);
        let _ = writeln!(
            svg,
            r##"<rect x="{}" y="{top}" width="{w}" height="{}" fill="#d62728" fill-opacity="0.12"><title>{} on {} from {from} to {to} ms</title></rect><text x="{}" y="{}" fill="#a00">{}</text>"##,
            x(*from),
            height - 30.0 - top,
            esc(name),
            esc(hosts),
            x(*from) + 2.0,
            20.0 + 12.0 * (i % 3) as f64,
            esc(name)
        );
    }
    for (i, (name, segments)) in lanes.iter().enumerate() {
        let y = top + LANE * i as f64;
        let _ = writeln!(
            svg,
            r##"<text x="4" y="{}">{}</text><line x1="{LEFT}" y1="{}" x2="{}" y2="{}" stroke="#dddddd"/>"##,
            y + 15.0,
            esc(name),
            y + LANE - 1.0,
            LEFT + WIDTH,
            y + LANE - 1.0
        );
        for s in segments {
            let to = if s.to == i64::MAX { end } else { s.to };
            let w = (x(to) - x(s.from)).max(1.0);
            let _ = writeln!(
                svg,
                r##"<g><title>{}</title><rect x="{}" y="{}" width="{w}" height="{}" fill="{}" stroke="#555" stroke-width="0.3"/>"##,
                esc(&s.title),
                x(s.from),
                y + 2.0,
                LANE - 5.0,
                s.colour
            );
            // The label only where it fits (about 6.5 px per character).
            let fit = ((w - 4.0) / 6.5).max(0.0) as usize;
            if fit >= 3 {
                let label: String = s.label.chars().take(fit).collect();
                let _ = writeln!(
                    svg,
                    r#"<text x="{}" y="{}">{}</text>"#,
                    x(s.from) + 2.0,
                    y + 15.0,
                    esc(&label)
                );
            }
            svg.push_str("</g>\n");
        }
    }
    for v in &run.violations {
        let _ = writeln!(
            svg,
            r##"<line x1="{0}" y1="{1}" x2="{0}" y2="{2}" stroke="#d00" stroke-width="2"/><text x="{3}" y="{4}" fill="#d00" font-weight="bold">{5}</text>"##,
            x(v.at_ms),
            top,
            height - 30.0,
            (x(v.at_ms) - 200.0).max(4.0),
            height - 12.0,
            esc(&format!("{} at {} ms", v.invariant.name(), v.at_ms))
        );
    }
    svg.push_str("</svg>\n");

    let mut page = String::new();
    let status = match run.verdict() {
        crate::run::Verdict::Passed => "passed".to_string(),
        crate::run::Verdict::Known(k) => format!(
            "known Kafka 4.4.0 behaviour: {}",
            k.iter().map(|b| b.name).collect::<Vec<_>>().join(", ")
        ),
        crate::run::Verdict::Failed => "FAILED".to_string(),
    };
    let _ = writeln!(
        page,
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>regroup {} seed {}</title>\n\
         <style>body{{font-family:sans-serif;margin:16px}} .v{{color:#d00}} code{{background:#f4f4f4}}</style>\n\
         </head><body>",
        esc(run.scenario),
        run.seed
    );
    let _ = writeln!(
        page,
        "<h2>{} — seed {} — {status}</h2>\n<p>{:.3} s simulated, {} events, trace <code>{}</code>, \
         build <code>{}</code>. Replay: <code>{}</code></p>",
        esc(run.scenario),
        run.seed,
        run.outcome.sim_ms as f64 / 1000.0,
        run.outcome.events,
        run.outcome.trace_hash,
        sim::build_info::REVISION,
        esc(&run.replay())
    );
    for v in &run.violations {
        let _ = writeln!(
            page,
            "<p class=\"v\"><b>{}</b> at {} ms: {}</p>",
            v.invariant.name(),
            v.at_ms,
            esc(&v.detail)
        );
    }
    page.push_str(
        "<p>Lanes: brokers (grey = down, orange = fenced by the controller), then every member \
         (colour = epoch or generation; label = epoch and owned active tasks or partitions). Red \
         bands are faults. Hover for details.</p>\n",
    );
    page.push_str(&svg);
    page.push_str("</body></html>\n");
    page
}

fn push_down(
    brokers: &mut BTreeMap<String, Vec<Segment>>,
    members: &mut BTreeMap<String, Vec<Segment>>,
    host: &str,
    from: i64,
    to: i64,
) {
    let seg = Segment {
        from,
        to,
        label: "down".into(),
        title: format!("{host} down {from}-{to} ms"),
        colour: "#999999".into(),
    };
    if host.starts_with("broker-") || host == "controller" {
        brokers.entry(host.to_string()).or_default().push(seg);
    } else {
        // A process: shown on its first member's lane.
        let prefix = format!("{host}/");
        if let Some((_, lane)) = members.iter_mut().find(|(n, _)| n.starts_with(&prefix)) {
            lane.push(seg);
        }
    }
}
