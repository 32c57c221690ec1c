//! Paginated lists: the URL of each page of a list, and what a list page's template gets as
//! `paginator`.

use tera::Value;

/// The URL of page `n` (1-based) of a paginated list at `base`.
pub(crate) fn paginated_path(base: &str, n: usize) -> String {
    if n <= 1 {
        base.to_string()
    } else {
        format!("{base}page/{n}/")
    }
}

pub(super) fn paginator(
    base: &str,
    page_indices: &[usize],
    item: &dyn Fn(usize) -> Value,
    synthetic: &[bool],
    per_page: usize,
    current: usize,
) -> Value {
    let total_pages = page_indices.len().div_ceil(per_page).max(1);
    let start = (current - 1) * per_page;
    let end = (start + per_page).min(page_indices.len());
    let page_items: Vec<Value> = page_indices[start..end].iter().map(|&i| item(i)).collect();
    let mut map = tera::Map::new();
    map.insert("items".into(), Value::from(page_items));
    let synthetic_count = page_indices[start..end]
        .iter()
        .filter(|&&i| synthetic[i])
        .count();
    map.insert("synthetic_count".into(), Value::from(synthetic_count));
    map.insert("current".into(), Value::from(current));
    map.insert("total_pages".into(), Value::from(total_pages));
    map.insert("total_items".into(), Value::from(page_indices.len()));
    map.insert(
        "first_item".into(),
        Value::from(if end > start { start + 1 } else { 0 }),
    );
    map.insert("last_item".into(), Value::from(end));
    let link = |n: usize| Value::from(paginated_path(base, n));
    map.insert(
        "previous".into(),
        if current > 1 {
            link(current - 1)
        } else {
            Value::none()
        },
    );
    map.insert(
        "next".into(),
        if current < total_pages {
            link(current + 1)
        } else {
            Value::none()
        },
    );
    // A window around the current page plus the first and last: listing all 550 pages of
    // an 11,000-case archive on every list page would make the lists quadratic in size.
    let mut pages: Vec<Value> = Vec::new();
    let mut last_shown = 0;
    for n in 1..=total_pages {
        let shown = n == 1 || n == total_pages || n.abs_diff(current) <= 2;
        if !shown {
            continue;
        }
        if n > last_shown + 1 {
            let mut gap = tera::Map::new();
            gap.insert("gap".into(), Value::from(true));
            pages.push(Value::from(gap));
        }
        let mut m = tera::Map::new();
        m.insert("number".into(), Value::from(n));
        m.insert("path".into(), link(n));
        m.insert("gap".into(), Value::from(false));
        pages.push(Value::from(m));
        last_shown = n;
    }
    map.insert("pages".into(), Value::from(pages));
    Value::from(map)
}
