//! Text rendering of walked frames: the byte layout (hex rows with the part of the frame each
//! byte belongs to) and the object tree with offsets, sizes and descriptions, in the format of
//! the seed page `broker-heartbeat-wire-layout.txt`.

use std::fmt::Write as _;

use super::walk::{Node, Region};

/// Longest description shown before it is cut with `...`.
const MAX_DESCRIPTION: usize = 80;

struct Row {
    name: String,
    ty: String,
    value: String,
    span: String,
    description: String,
}

fn collect(node: &Node, own_prefix: &str, child_prefix: &str, rows: &mut Vec<Row>) {
    let mut description = node.description.clone();
    if description.chars().count() > MAX_DESCRIPTION {
        description = description
            .chars()
            .take(MAX_DESCRIPTION - 3)
            .collect::<String>()
            + "...";
    }
    rows.push(Row {
        name: format!("{own_prefix}{}", node.label),
        ty: node.type_name.clone(),
        value: node
            .value
            .as_ref()
            .map(|v| format!("= {v}"))
            .unwrap_or_default(),
        span: format!("[{:#06x}, {}B]", node.offset, node.size),
        description,
    });
    let n = node.children.len();
    for (i, child) in node.children.iter().enumerate() {
        let last = i + 1 == n;
        let below = if last { "    " } else { "|   " };
        collect(
            child,
            &format!("{child_prefix}+-- "),
            &format!("{child_prefix}{below}"),
            rows,
        );
    }
}

/// Renders the tree rooted at `root` as aligned text rows.
pub fn render_tree(root: &Node) -> String {
    let mut rows = Vec::new();
    collect(root, "", "", &mut rows);
    let w_name = rows
        .iter()
        .map(|r| r.name.chars().count())
        .max()
        .unwrap_or(0)
        + 2;
    let w_ty = rows.iter().map(|r| r.ty.chars().count()).max().unwrap_or(0) + 2;
    let w_val = rows
        .iter()
        .map(|r| r.value.chars().count())
        .max()
        .unwrap_or(0)
        + 2;
    let w_span = rows.iter().map(|r| r.span.len()).max().unwrap_or(0) + 2;
    let mut out = String::new();
    for r in rows {
        let line = format!(
            "{:<w_name$}{:<w_ty$}{:<w_val$}{:<w_span$}{}",
            r.name, r.ty, r.value, r.span, r.description
        );
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

fn region_letter(r: Region) -> char {
    match r {
        Region::Frame => 'F',
        Region::Header => 'H',
        Region::Body => 'B',
        Region::TaggedFields => 'T',
        Region::RecordBatch => 'R',
    }
}

fn paint(node: &Node, regions: &mut [Region]) {
    let end = (node.offset + node.size).min(regions.len());
    if node.offset < end {
        for r in &mut regions[node.offset..end] {
            *r = node.region;
        }
    }
    for c in &node.children {
        paint(c, regions);
    }
}

/// Renders `frame` as hex rows of 16 bytes with, under each row, the part of the frame every
/// byte belongs to (from the walked `tree`).
pub fn render_layout(frame: &[u8], tree: &Node) -> String {
    let mut regions = vec![Region::Body; frame.len()];
    paint(tree, &mut regions);
    let mut out = String::new();
    let _ = writeln!(out, "byte layout ({} bytes, 16 bytes per row)", frame.len());
    let _ = writeln!(
        out,
        "        0  1  2  3  4  5  6  7  8  9  A  B  C  D  E  F"
    );
    for (row, chunk) in frame.chunks(16).enumerate() {
        let mut hex = String::new();
        let mut marks = String::new();
        let mut ascii = String::new();
        for (i, b) in chunk.iter().enumerate() {
            let _ = write!(hex, "{b:02x} ");
            let _ = write!(marks, "{}  ", region_letter(regions[row * 16 + i]));
            ascii.push(if b.is_ascii_graphic() {
                *b as char
            } else {
                '.'
            });
        }
        let _ = writeln!(out, "{:04x}    {:<48}  {}", row * 16, hex, ascii);
        let _ = writeln!(out, "        {}", marks.trim_end());
    }
    let _ = writeln!(
        out,
        "legend: F frame size  H rpc header  B body  T tagged fields  R record batch"
    );
    out
}
