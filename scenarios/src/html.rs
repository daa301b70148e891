//! `regroup run <name> --seed N --html FILE` (and `regroup replay FILE --html OUT`): one
//! self-contained HTML page (inline SVG and CSS, no script, no external file) showing the run over
//! simulated time — the controller's lane, a lane per broker with its down and fenced periods, a
//! lane per member with its epoch and owned tasks or partitions (hatched where a streams member's
//! owned active tasks differ from what the coordinator's committed records assign it, the
//! coordinator's tasks on hover), one row per fault so labels never overlap, and the violation if
//! there is one. Zoom buttons widen the timeline (CSS only); hover a segment for its details.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use coordinator::events::EventKind as ClusterKind;
use members::observer::EventKind as ClientKind;
use sim::event::{FaultEvent, SimEventKind};

use coordinator::Record;
use sim::cluster::CONTROLLER_HOST;

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
    /// A streams member's snapshot: its member id and owned active tasks (compared with the
    /// coordinator's assignment).
    owned: Option<(String, Vec<String>)>,
}

/// A fault window's band: (start, end, fault name, hosts).
type Band = (i64, i64, String, String);

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
    let mut bands: BTreeMap<usize, Band> = BTreeMap::new();
    // Per streams member id: the coordinator's committed active tasks for it, from each time on.
    let mut assigned: BTreeMap<String, Vec<(i64, Vec<String>)>> = BTreeMap::new();
    // The controller's broker lifecycle decisions, as ticks on its lane.
    let mut marks: Vec<(i64, String)> = Vec::new();
    let close = |lane: &mut Vec<Segment>, t: i64| {
        if let Some(last) = lane.last_mut()
            && last.to == i64::MAX
        {
            last.to = t;
        }
    };
    for e in log {
        // Every broker gets a lane, whether or not anything happens to it.
        if e.host.starts_with("broker-") && !brokers.contains_key(&e.host) {
            brokers.insert(e.host.clone(), Vec::new());
        }
        match &e.kind {
            SimEventKind::Client {
                client,
                kind,
                member_id,
            } => {
                let streams = matches!(kind, ClientKind::OwnedTasks { .. });
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
                let owned = streams.then(|| (member_id.clone(), sorted(items.clone())));
                lane.push(Segment {
                    from: e.at_ms,
                    to: i64::MAX,
                    label: format!("e{epoch} {}", items.join(" ")),
                    title,
                    colour: epoch_colour(epoch),
                    owned,
                });
            }
            SimEventKind::Record {
                record: Record::StreamsGroupCurrentMemberAssignment { key, value },
                ..
            } => {
                let tasks = value
                    .as_ref()
                    .map(|v| {
                        sorted(
                            v.active_tasks
                                .iter()
                                .flat_map(|t| {
                                    t.partitions
                                        .iter()
                                        .map(move |p| format!("{}_{p}", t.subtopology_id))
                                })
                                .collect(),
                        )
                    })
                    .unwrap_or_default();
                assigned
                    .entry(key.member_id.clone())
                    .or_default()
                    .push((e.at_ms, tasks));
            }
            SimEventKind::Cluster { kind, .. } => match kind {
                ClusterKind::BrokerFenced { broker, .. } => {
                    fenced_since.entry(*broker).or_insert(e.at_ms);
                    marks.push((e.at_ms, format!("controller fenced broker {broker}")));
                }
                ClusterKind::BrokerRegistered { broker, epoch, .. } => {
                    marks.push((
                        e.at_ms,
                        format!("controller registered broker {broker} at epoch {epoch}"),
                    ));
                }
                ClusterKind::BrokerUnfenced { broker, epoch } => {
                    marks.push((
                        e.at_ms,
                        format!("controller unfenced broker {broker} (epoch {epoch})"),
                    ));
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
                                owned: None,
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
                owned: None,
            });
    }
    for (h, from) in down_since {
        push_down(&mut brokers, &mut members, &h, from, end);
    }

    // The controller's lane always, first (its down periods are in `brokers` under its host).
    let controller = brokers.remove(CONTROLLER_HOST).unwrap_or_default();
    let lanes: Vec<(String, Vec<Segment>)> =
        std::iter::once((CONTROLLER_HOST.to_string(), controller))
            .chain(brokers)
            .chain(members)
            .collect();
    // Fault labels: each window's label goes on the first row where it does not overlap an
    // earlier one (about 6.5 px per character), so no two labels ever cross.
    let mut rows: Vec<f64> = Vec::new();
    let mut placed: Vec<(usize, &Band)> = Vec::new();
    for band in bands.values() {
        let start = x(band.0);
        let width = 6.5 * band.2.len() as f64 + 6.0;
        let row = match rows.iter().position(|end| *end <= start) {
            Some(r) => r,
            None => {
                rows.push(0.0);
                rows.len() - 1
            }
        };
        rows[row] = start.max(x(band.1)).max(start + width);
        placed.push((row, band));
    }
    let fault_rows = rows.len().max(1) as f64;
    // The time axis's labels on the first line, then the fault label rows, then the lanes.
    let top = 32.0 + 13.0 * fault_rows;
    let height = top + LANE * lanes.len() as f64 + 40.0;
    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {} {height}" font-family="monospace" font-size="11">"#,
        LEFT + WIDTH + 20.0
    );
    svg.push_str(
        r##"<defs><pattern id="diverged" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#ffffff" fill-opacity="0.15"/><line x1="0" y1="0" x2="0" y2="6" stroke="#b00020" stroke-width="2.5"/></pattern></defs>
"##,
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
            12.0,
            t / 1000
        );
        t += 5_000;
    }
    for (row, (from, to, name, hosts)) in &placed {
        let w = (x(*to) - x(*from)).max(2.0);
        let _ = writeln!(
            svg,
            r##"<rect x="{}" y="{top}" width="{w}" height="{}" fill="#d62728" fill-opacity="0.12"><title>{} on {} from {from} to {to} ms</title></rect><text x="{}" y="{}" fill="#a00">{}<title>{} on {}</title></text>"##,
            x(*from),
            height - 30.0 - top,
            esc(name),
            esc(hosts),
            x(*from) + 2.0,
            28.0 + 13.0 * *row as f64,
            esc(name),
            esc(name),
            esc(hosts),
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
            if let Some((member, owned)) = &s.owned {
                for (from, to, theirs) in diverged(assigned.get(member), owned, s.from, to) {
                    let w = (x(to) - x(from)).max(1.0);
                    let _ = writeln!(
                        svg,
                        r##"<rect x="{}" y="{}" width="{w}" height="{}" fill="url(#diverged)"><title>{} {from}-{to} ms: owns [{}] but the coordinator assigned [{}]</title></rect>"##,
                        x(from),
                        y + 2.0,
                        LANE - 5.0,
                        esc(name),
                        owned.join(", "),
                        theirs.join(", ")
                    );
                }
            }
        }
        if i == 0 {
            for (at, what) in &marks {
                let _ = writeln!(
                    svg,
                    r##"<line x1="{0}" y1="{1}" x2="{0}" y2="{2}" stroke="#333" stroke-width="1.5"><title>{3} at {4} ms</title></line>"##,
                    x(*at),
                    y + 3.0,
                    y + LANE - 4.0,
                    esc(what),
                    at
                );
            }
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
         <style>body{{font-family:sans-serif;margin:16px}} .v{{color:#d00}} code{{background:#f4f4f4}}\n\
         .zoom input{{display:none}} .zoom label{{border:1px solid #999;padding:1px 8px;margin-right:4px;cursor:pointer}}\n\
         .zoom input:checked+label{{background:#333;color:#fff}}\n\
         .scroll{{overflow-x:auto;border:1px solid #eee}} .scroll svg{{width:100%;height:auto;display:block}}\n\
         #z2:checked~.scroll svg{{width:200%}} #z4:checked~.scroll svg{{width:400%}} #z8:checked~.scroll svg{{width:800%}}</style>\n\
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
        "<p>Lanes: the controller (ticks = its broker registrations, fences and unfences), the \
         brokers (grey = down, orange = fenced by the controller), then every member (colour = epoch \
         or generation; label = epoch and owned active tasks or partitions; red hatching = a streams \
         member's owned active tasks differ from the coordinator's committed assignment, which the \
         hover shows). Red bands are faults, one label row each where they would overlap. Hover for \
         details.</p>\n",
    );
    page.push_str(
        "<div class=\"zoom\">zoom: \
         <input type=\"radio\" name=\"zoom\" id=\"z1\" checked><label for=\"z1\">fit</label>\
         <input type=\"radio\" name=\"zoom\" id=\"z2\"><label for=\"z2\">2x</label>\
         <input type=\"radio\" name=\"zoom\" id=\"z4\"><label for=\"z4\">4x</label>\
         <input type=\"radio\" name=\"zoom\" id=\"z8\"><label for=\"z8\">8x</label>\n\
         <div class=\"scroll\">",
    );
    page.push_str(&svg);
    page.push_str("</div></div>\n");
    page.push_str("</body></html>\n");
    page
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

/// The sub-intervals of `[from, to)` in which the coordinator's committed assignment (`timeline`:
/// from each time on) differs from `owned`, with the coordinator's tasks. Before the coordinator's
/// first record for the member nothing is compared.
fn diverged(
    timeline: Option<&Vec<(i64, Vec<String>)>>,
    owned: &[String],
    from: i64,
    to: i64,
) -> Vec<(i64, i64, Vec<String>)> {
    let Some(timeline) = timeline else {
        return Vec::new();
    };
    let mut out: Vec<(i64, i64, Vec<String>)> = Vec::new();
    for (i, (at, theirs)) in timeline.iter().enumerate() {
        let next = timeline.get(i + 1).map_or(i64::MAX, |(t, _)| *t);
        let (a, b) = ((*at).max(from), next.min(to));
        if a < b && theirs.as_slice() != owned {
            match out.last_mut() {
                Some(last) if last.1 == a && last.2 == *theirs => last.1 = b,
                _ => out.push((a, b, theirs.clone())),
            }
        }
    }
    out
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
        owned: None,
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
