//! proptest strategies that produce random, schema-valid messages as Kafka-style JSON, for any
//! api, version and direction. Shared by the property tests and the Java cross-check dump.

#![allow(dead_code)]

use proptest::prelude::*;
use protocol::json::{base64_encode, kafka_uuid_string};
use protocol::schema::{Field, MessageSchema, Type, empty_record_batch};
use serde_json::{Map, Value};

fn int_strategy(ty: &Type) -> BoxedStrategy<Value> {
    match ty {
        Type::Int8 => prop_oneof![Just(0i64), any::<i8>().prop_map(i64::from)]
            .prop_map(Value::from)
            .boxed(),
        Type::Int16 => prop_oneof![Just(0i64), any::<i16>().prop_map(i64::from)]
            .prop_map(Value::from)
            .boxed(),
        Type::Int32 => prop_oneof![Just(0i64), Just(-1i64), any::<i32>().prop_map(i64::from)]
            .prop_map(Value::from)
            .boxed(),
        Type::Int64 => prop_oneof![Just(0i64), Just(-1i64), any::<i64>()]
            .prop_map(Value::from)
            .boxed(),
        Type::Uint16 => any::<u16>().prop_map(Value::from).boxed(),
        Type::Uint32 => any::<u32>().prop_map(Value::from).boxed(),
        _ => unreachable!(),
    }
}

fn value_strategy(
    ty: &'static Type,
    version: i16,
    nullable: bool,
    depth: u32,
) -> BoxedStrategy<Value> {
    let inner: BoxedStrategy<Value> = match ty {
        Type::Bool => any::<bool>().prop_map(Value::Bool).boxed(),
        Type::Int8 | Type::Int16 | Type::Int32 | Type::Int64 | Type::Uint16 | Type::Uint32 => {
            int_strategy(ty)
        }
        Type::Float64 => (-1.0e12f64..1.0e12).prop_map(Value::from).boxed(),
        Type::String => "[a-zA-Z0-9._\\-é]{0,6}".prop_map(Value::String).boxed(),
        Type::Bytes => proptest::collection::vec(any::<u8>(), 0..8)
            .prop_map(|b| Value::String(base64_encode(&b)))
            .boxed(),
        Type::Records => prop_oneof![
            Just(Value::String(String::new())),
            Just(Value::String(base64_encode(&empty_record_batch()))),
            proptest::collection::vec(any::<u8>(), 0..16)
                .prop_map(|b| Value::String(base64_encode(&b))),
        ]
        .boxed(),
        Type::Uuid => prop_oneof![Just([0u8; 16]), any::<[u8; 16]>()]
            .prop_map(|b| Value::String(kafka_uuid_string(&b)))
            .boxed(),
        Type::Struct(s) => struct_strategy(s.fields, version, depth + 1),
        Type::Array(elem) => {
            let max = if depth >= 3 { 1 } else { 3 };
            proptest::collection::vec(value_strategy(elem, version, false, depth + 1), 0..max)
                .prop_map(Value::Array)
                .boxed()
        }
    };
    if nullable {
        prop_oneof![1 => Just(Value::Null), 3 => inner].boxed()
    } else {
        inner
    }
}

fn struct_strategy(fields: &'static [Field], version: i16, depth: u32) -> BoxedStrategy<Value> {
    let parts: Vec<BoxedStrategy<(String, Value)>> = fields
        .iter()
        .filter(|f| f.is_present(version))
        .map(|f| {
            let name = f.json_name();
            value_strategy(&f.ty, version, f.is_nullable(version), depth)
                .prop_map(move |v| (name.clone(), v))
                .boxed()
        })
        .collect();
    parts
        .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<String, Value>>()))
        .boxed()
}

/// A random message body of `schema` at `version`, as JSON.
pub fn message_strategy(schema: &'static MessageSchema, version: i16) -> BoxedStrategy<Value> {
    struct_strategy(schema.fields, version, 0)
}
