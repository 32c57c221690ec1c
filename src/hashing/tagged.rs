//! Any serde value written as tagged bytes, for hashing: every page's fingerprint hashes its
//! own values at every build, and writing them as JSON (escaping each string, formatting each
//! number) was most of that time.
//!
//! Each value starts with a tag naming its kind; text and bytes carry their length, and a
//! sequence, map or struct ends with `END`, which no value starts with. So no two values of
//! one type write the same bytes, and no value's bytes are the start of another's.

use serde::ser::{self, Serialize};

const END: u8 = 0xff;

/// Serde's data model, written into a buffer.
pub(super) struct Tagged<'b>(pub(super) &'b mut Vec<u8>);

impl Tagged<'_> {
    fn tag(&mut self, tag: u8) {
        self.0.push(tag);
    }

    fn len(&mut self, len: usize) {
        self.0.extend_from_slice(&(len as u64).to_le_bytes());
    }

    fn text(&mut self, tag: u8, text: &[u8]) {
        self.tag(tag);
        self.len(text.len());
        self.0.extend_from_slice(text);
    }
}

/// A value that would not serialise (a path that is not UTF-8, say): the bytes so far stand,
/// with a mark after them (`Hasher::serialized`).
#[derive(Debug)]
pub(super) struct Unwritable;

impl std::fmt::Display for Unwritable {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a value that does not serialise")
    }
}

impl std::error::Error for Unwritable {}

impl ser::Error for Unwritable {
    fn custom<T: std::fmt::Display>(_: T) -> Self {
        Unwritable
    }
}

type Done = Result<(), Unwritable>;

/// A number widened to one of four kinds, written as its kind's tag, then its bytes.
trait Widened {
    fn write(self, out: &mut Vec<u8>);
}

macro_rules! widened {
    ($($wide:ty = $tag:literal),*) => {$(
        impl Widened for $wide {
            fn write(self, out: &mut Vec<u8>) {
                out.push($tag);
                out.extend_from_slice(&self.to_le_bytes());
            }
        }
    )*};
}

widened!(i64 = 1, i128 = 2, u64 = 3, u128 = 4);

/// `Serializer` methods for numbers, each widened to its kind (`Widened`).
macro_rules! numbers {
    ($($method:ident($ty:ty) as $wide:ty),* $(,)?) => {$(
        fn $method(self, v: $ty) -> Done {
            <$wide>::from(v).write(self.0);
            Ok(())
        }
    )*};
}

impl ser::Serializer for &mut Tagged<'_> {
    type Ok = ();
    type Error = Unwritable;
    type SerializeSeq = Self;
    type SerializeTuple = Self;
    type SerializeTupleStruct = Self;
    type SerializeTupleVariant = Self;
    type SerializeMap = Self;
    type SerializeStruct = Self;
    type SerializeStructVariant = Self;

    fn serialize_bool(self, v: bool) -> Done {
        self.0.extend_from_slice(&[0, u8::from(v)]);
        Ok(())
    }
    // Each number as one of five kinds, widened, in fixed bytes.
    numbers! {
        serialize_i8(i8) as i64, serialize_i16(i16) as i64, serialize_i32(i32) as i64,
        serialize_i64(i64) as i64, serialize_i128(i128) as i128,
        serialize_u8(u8) as u64, serialize_u16(u16) as u64, serialize_u32(u32) as u64,
        serialize_u64(u64) as u64, serialize_u128(u128) as u128,
    }
    fn serialize_f32(self, v: f32) -> Done {
        self.serialize_f64(f64::from(v))
    }
    fn serialize_f64(self, v: f64) -> Done {
        self.tag(5);
        self.0.extend_from_slice(&v.to_bits().to_le_bytes());
        Ok(())
    }
    fn serialize_char(self, v: char) -> Done {
        self.serialize_str(v.encode_utf8(&mut [0; 4]))
    }
    fn serialize_str(self, v: &str) -> Done {
        self.text(6, v.as_bytes());
        Ok(())
    }
    fn serialize_bytes(self, v: &[u8]) -> Done {
        self.text(7, v);
        Ok(())
    }
    fn serialize_none(self) -> Done {
        self.tag(8);
        Ok(())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Done {
        self.tag(9);
        value.serialize(self)
    }
    fn serialize_unit(self) -> Done {
        self.tag(10);
        Ok(())
    }
    fn serialize_unit_struct(self, name: &'static str) -> Done {
        self.text(11, name.as_bytes());
        Ok(())
    }
    fn serialize_unit_variant(self, _: &'static str, index: u32, variant: &'static str) -> Done {
        self.text(12, variant.as_bytes());
        self.len(index as usize);
        Ok(())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, value: &T) -> Done {
        self.tag(13);
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Done {
        self.text(14, variant.as_bytes());
        value.serialize(self)
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self, Unwritable> {
        self.tag(15);
        Ok(self)
    }
    fn serialize_tuple(self, _: usize) -> Result<Self, Unwritable> {
        self.tag(16);
        Ok(self)
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Self, Unwritable> {
        self.tag(17);
        Ok(self)
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Self, Unwritable> {
        self.text(18, variant.as_bytes());
        Ok(self)
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self, Unwritable> {
        self.tag(19);
        Ok(self)
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self, Unwritable> {
        self.tag(20);
        Ok(self)
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Self, Unwritable> {
        self.text(21, variant.as_bytes());
        Ok(self)
    }
}

/// The items of a sequence, tuple or map (keys and values alike), then `END`.
macro_rules! items {
    ($($trait:ident :: $method:ident),*) => {$(
        impl ser::$trait for &mut Tagged<'_> {
            type Ok = ();
            type Error = Unwritable;
            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Done {
                value.serialize(&mut **self)
            }
            fn end(self) -> Done {
                self.tag(END);
                Ok(())
            }
        }
    )*};
}

items!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

impl ser::SerializeMap for &mut Tagged<'_> {
    type Ok = ();
    type Error = Unwritable;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Done {
        key.serialize(&mut **self)
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Done {
        value.serialize(&mut **self)
    }
    fn end(self) -> Done {
        self.tag(END);
        Ok(())
    }
}

/// The fields of a struct, each its name then its value (a skipped field writes nothing),
/// then `END`.
macro_rules! fields {
    ($($trait:ident),*) => {$(
        impl ser::$trait for &mut Tagged<'_> {
            type Ok = ();
            type Error = Unwritable;
            fn serialize_field<T: Serialize + ?Sized>(
                &mut self,
                key: &'static str,
                value: &T,
            ) -> Done {
                self.text(6, key.as_bytes());
                value.serialize(&mut **self)
            }
            fn end(self) -> Done {
                self.tag(END);
                Ok(())
            }
        }
    )*};
}

fields!(SerializeStruct, SerializeStructVariant);

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(value: &impl Serialize) -> Vec<u8> {
        let mut out = Vec::new();
        value.serialize(&mut Tagged(&mut out)).unwrap();
        out
    }

    #[derive(serde::Serialize)]
    struct View<'a> {
        title: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        date: Option<&'a str>,
        tags: Vec<&'a str>,
    }

    #[test]
    fn values_that_differ_write_different_bytes() {
        let view = |title, date, tags: &[&'static str]| {
            bytes(&View {
                title,
                date,
                tags: tags.to_vec(),
            })
        };
        let all = [
            view("a", None, &[]),
            view("a", Some("2014"), &[]),
            view("a", None, &["2014"]),
            view("", None, &["a"]),
            view("a", None, &["b", "c"]),
            view("a", None, &["bc"]),
            view("a", None, &["b", ""]),
        ];
        for (i, a) in all.iter().enumerate() {
            for b in &all[i + 1..] {
                assert_ne!(a, b);
            }
        }
        assert_eq!(view("a", None, &["b"]), view("a", None, &["b"]));
        // Kinds apart, and a value never the start of another.
        assert_ne!(bytes(&1u8), bytes(&1i8));
        assert_ne!(bytes(&Some(())), bytes(&()));
        assert_ne!(
            bytes(&vec![vec![1u8], vec![]]),
            bytes(&vec![vec![], vec![1u8]])
        );
        let map = |pairs: &[(&str, &str)]| {
            bytes(
                &pairs
                    .iter()
                    .copied()
                    .collect::<std::collections::BTreeMap<_, _>>(),
            )
        };
        assert_ne!(map(&[("a", "b")]), map(&[("ab", "")]));
        assert_ne!(map(&[("a", "")]), map(&[]));
    }

    #[test]
    fn a_value_that_does_not_serialise_is_an_error() {
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStrExt as _;
            let path = std::path::Path::new(std::ffi::OsStr::from_bytes(b"\xff"));
            let mut out = Vec::new();
            assert!(path.serialize(&mut Tagged(&mut out)).is_err());
        }
    }
}
