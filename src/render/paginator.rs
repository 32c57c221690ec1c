//! Paginated lists: the URL of each page of a list, and what a list page's template gets as
//! `paginator`.

use tera::Value;

use crate::hashing::Hasher;

/// The URL of page `n` (1-based) of a paginated list at `base`.
pub(crate) fn paginated_path(base: &str, n: usize) -> String {
    if n <= 1 {
        base.to_string()
    } else {
        format!("{base}page/{n}/")
    }
}

/// One page of a paginated list: the list's address, its pages (indices into the corpus'
/// pages) with which of them are synthetic, how many a page shows, and which page this is
/// (1-based).
pub(super) struct List<'a> {
    pub(super) base: &'a str,
    pub(super) page_indices: &'a [usize],
    pub(super) synthetic: &'a [bool],
    pub(super) per_page: usize,
    pub(super) current: usize,
}

impl List<'_> {
    /// The indices of the pages this page of the list shows.
    fn shown(&self) -> &[usize] {
        let start = (self.current - 1) * self.per_page;
        let end = (start + self.per_page).min(self.page_indices.len());
        &self.page_indices[start..end]
    }

    /// For a page's fingerprint, what its `paginator` is made from, each shown item by its
    /// key (`Prepared::item_keys`): everything else in it (counts, the window of page links,
    /// previous and next) follows from the address, the number of pages and the current one.
    /// Making the value only to hash it took a fifth of a one-case edit's fingerprints.
    pub(super) fn hash_into(&self, h: &mut Hasher, item_keys: &[u128]) {
        h.text(self.base);
        for n in [self.page_indices.len(), self.per_page, self.current] {
            h.number(n as u64);
        }
        for &i in self.shown() {
            h.bytes(&item_keys[i].to_le_bytes());
            h.number(u64::from(self.synthetic[i]));
        }
    }

    /// What a list page's template gets as `paginator`, each item made by `item`.
    pub(super) fn value(&self, item: &dyn Fn(usize) -> Value) -> Value {
        paginator(
            self.base,
            self.page_indices,
            item,
            self.synthetic,
            self.per_page,
            self.current,
        )
    }
}

fn paginator(
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

#[cfg(test)]
mod tests {
    use super::*;

    fn hash(list: &List, keys: &[u128]) -> u128 {
        let mut h = Hasher::default();
        list.hash_into(&mut h, keys);
        h.digest()
    }

    #[test]
    fn a_list_pages_hash_moves_with_everything_its_paginator_shows() {
        let (pages, synthetic, keys) = ([0, 1, 2, 3, 4], [false; 5], [10u128, 11, 12, 13, 14]);
        let list = List {
            base: "/cases/",
            page_indices: &pages,
            synthetic: &synthetic,
            per_page: 2,
            current: 2,
        };
        let first = hash(&list, &keys);
        // An item the page does not show does not count; one it shows does.
        assert_eq!(hash(&list, &[99, 11, 12, 13, 14]), first);
        assert_ne!(hash(&list, &[10, 11, 99, 13, 14]), first);
        let mut marked = synthetic;
        marked[3] = true;
        let others = [
            List {
                base: "/other/",
                ..list
            },
            List {
                page_indices: &pages[..4],
                ..list
            },
            List {
                synthetic: &marked,
                ..list
            },
            List {
                per_page: 3,
                ..list
            },
            List { current: 3, ..list },
        ];
        for other in others {
            assert_ne!(hash(&other, &keys), first);
        }
    }
}
