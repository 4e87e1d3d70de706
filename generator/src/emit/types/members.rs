//! The names of a union's members, from what each member means rather than where it stands.
//! For each member, the first of:
//!
//! 1. its **tag**: the `discriminator` `mapping` value naming its component, else the one value
//!    it pins the tag property to (with a discriminator, its `propertyName`; without one, the
//!    first property every member pins to a distinct value, Stripe's `object` or OpenAI's
//!    `type` and `role`): `User`, `Assistant`;
//! 2. its **component's name** without the union's own name words at its start or end, and
//!    without the words every referenced member shares at the start or end
//!    (`ChatCompletionRequestUserMessage` in `ChatCompletionRequestMessage` is `User`;
//!    `ResponseFormatText` beside `ResponseFormatJsonObject` is `Text`);
//! 3. its `title`;
//! 4. the one value it pins itself to (`const`, or a one-value `enum`): `Auto`, `Inf`, else
//!    the value its first pinned property has (`kind: upstream_error`: `UpstreamError`);
//! 5. for an object beside other objects, the first property only it has: `WaitTimer`;
//! 6. its **type**: `String`, `DateTime`, `Integer`, `Number`, `Boolean`, `Object`, and for an
//!    array its items' name and `List` (`StringList`, `ImageUrlList`), else `List`;
//! 7. `Variant` and its position, when nothing above names it.
//!
//! Names that collide are told apart by the caller (`Unique`: `String`, `String2`).

use super::*;

/// A schema's reference to a whole component, seen through an `allOf` of that reference alone.
fn component_of(schema: &Value) -> Option<String> {
    let reference = match schema
        .get("allOf")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
    {
        Some([only]) if schema.get("$ref").is_none() => only.get("$ref"),
        _ => schema.get("$ref"),
    }?;
    match harness_gen_contract::schema::standalone::classify(reference.as_str()?) {
        harness_gen_contract::schema::standalone::RefTarget::Component { name, rest }
            if rest.is_empty() =>
        {
            Some(name)
        }
        _ => None,
    }
}

/// The one string value `schema` pins itself to.
fn own_pin(schema: &Value) -> Option<&str> {
    match schema.get("const") {
        Some(value) => value.as_str(),
        None => match schema.get("enum")?.as_array()?.as_slice() {
            [one] => one.as_str(),
            _ => None,
        },
    }
}

/// The words of an UpperCamelCase name (`ChatCompletionRequest` → `Chat`, `Completion`,
/// `Request`; a run of capitals and digits stays one word).
fn words(name: &str) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    let chars: Vec<char> = name.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        let starts = i == 0
            || (c.is_ascii_uppercase()
                && (chars[i - 1].is_ascii_lowercase()
                    || chars.get(i + 1).is_some_and(|n| n.is_ascii_lowercase())
                        && chars[i - 1].is_ascii_uppercase()));
        match words.last_mut() {
            Some(word) if !starts => word.push(c),
            _ => words.push(c.to_string()),
        }
    }
    words
}

/// How many leading (`from_end`: trailing) words `a` and `b` share.
fn shared(a: &[String], b: &[String], from_end: bool) -> usize {
    let pairs: Box<dyn Iterator<Item = (&String, &String)>> = if from_end {
        Box::new(a.iter().rev().zip(b.iter().rev()))
    } else {
        Box::new(a.iter().zip(b.iter()))
    };
    pairs.take_while(|(x, y)| x == y).count()
}

/// `name`'s words without `start` words at its start and `end` at its end, when some are left.
fn trimmed(name: &[String], start: usize, end: usize) -> Option<String> {
    (start + end < name.len()).then(|| name[start..name.len() - end].concat())
}

impl TypeSpace<'_> {
    /// The base name of each member of the union `union` (see the module docs), `None` for the
    /// `null` members.
    pub(super) fn member_names(
        &self,
        union: &str,
        variants: &[Value],
        map: &Map<String, Value>,
        pointer: &str,
    ) -> Vec<Option<String>> {
        let members: Vec<Option<&Value>> = variants
            .iter()
            .map(|v| (!v.get("type").is_some_and(|t| t == "null")).then_some(v))
            .collect();
        let tags = self.tag_names(&members, map, pointer);
        let components = self.component_names(union, &members);
        let own_properties = self.own_property_names(&members, pointer);
        members
            .iter()
            .enumerate()
            .map(|(i, member)| {
                let member = (*member)?;
                let name = tags[i]
                    .clone()
                    .or_else(|| components[i].clone())
                    .or_else(|| member.get("title").and_then(Value::as_str).map(camel))
                    .or_else(|| own_pin(member).map(variant_stem))
                    .or_else(|| self.pinned_property(member, pointer).map(variant_stem))
                    .or_else(|| own_properties[i].clone())
                    .or_else(|| self.type_word(member, pointer))
                    .unwrap_or_else(|| format!("Variant{i}"));
                Some(name)
            })
            .collect()
    }

    /// Per member, the name of its tag value, when every member has one and no two share it.
    fn tag_names(
        &self,
        members: &[Option<&Value>],
        map: &Map<String, Value>,
        pointer: &str,
    ) -> Vec<Option<String>> {
        let none = vec![None; members.len()];
        let present: Vec<&Value> = members.iter().flatten().copied().collect();
        if present.len() < 2 {
            return none;
        }
        let resolved: Vec<&Value> = present
            .iter()
            .map(|m| self.resolved(m, pointer.to_string()).0)
            .collect();
        let pin = |schema: &Value, property: &str| -> Option<String> {
            own_pin(schema.get("properties")?.get(property)?).map(str::to_string)
        };
        let discriminator = map.get("discriminator");
        let candidates: Vec<String> = match discriminator
            .and_then(|d| d.get("propertyName"))
            .and_then(Value::as_str)
        {
            Some(property) => vec![property.to_string()],
            None => resolved[0]
                .get("properties")
                .and_then(Value::as_object)
                .map(|p| p.keys().cloned().collect())
                .unwrap_or_default(),
        };
        let mapping = discriminator
            .and_then(|d| d.get("mapping"))
            .and_then(Value::as_object);
        for property in candidates {
            let values: Option<Vec<String>> = present
                .iter()
                .zip(&resolved)
                .map(|(member, resolved)| {
                    // Of the values mapped to the member's component, the one that is its
                    // name if there is one (`cat` rather than `kitty` for `Cat`).
                    let mapped = component_of(member).and_then(|component| {
                        let values: Vec<&String> = mapping?
                            .iter()
                            .filter(|(_, target)| {
                                target.as_str().is_some_and(|target| {
                                    target == component
                                        || target.rsplit('/').next() == Some(component.as_str())
                                })
                            })
                            .map(|(value, _)| value)
                            .collect();
                        let named = camel(&component);
                        values
                            .iter()
                            .find(|value| variant_stem(value) == named)
                            .or(values.first())
                            .map(|value| (*value).clone())
                    });
                    mapped.or_else(|| pin(resolved, &property))
                })
                .collect();
            let Some(values) = values else { continue };
            let names: Vec<String> = values.iter().map(|v| variant_stem(v)).collect();
            let distinct: BTreeSet<&String> = names.iter().collect();
            if distinct.len() == names.len() {
                let mut names = names.into_iter();
                return members
                    .iter()
                    .map(|m| m.and_then(|_| names.next()))
                    .collect();
            }
        }
        none
    }

    /// Per member, its component's name without what the union's name and the other
    /// referenced members share with it.
    fn component_names(&self, union: &str, members: &[Option<&Value>]) -> Vec<Option<String>> {
        let union = words(union);
        let names: Vec<Option<Vec<String>>> = members
            .iter()
            .map(|m| {
                let c = m.and_then(component_of)?;
                Some(words(&camel(self.views_of.get(&c).unwrap_or(&c))))
            })
            .collect();
        let referenced: Vec<&Vec<String>> = names.iter().flatten().collect();
        // The words every referenced member shares at its start and at its end.
        let (mut common_start, mut common_end) = (usize::MAX, usize::MAX);
        if referenced.len() >= 2 {
            for name in &referenced[1..] {
                common_start = common_start.min(shared(referenced[0], name, false));
                common_end = common_end.min(shared(referenced[0], name, true));
            }
        } else {
            (common_start, common_end) = (0, 0);
        }
        names
            .iter()
            .map(|name| {
                let name = name.as_ref()?;
                let start = shared(&union, name, false);
                let end = shared(&union[start.min(union.len())..], name, true);
                let own = trimmed(name, start, end);
                let together = trimmed(name, common_start.max(start), common_end.max(end));
                together.or(own).or_else(|| Some(name.concat()))
            })
            .collect()
    }

    /// The value the first property of `member` that is pinned to one value has (a member
    /// alone with its tag: `kind: upstream_error` is `UpstreamError`).
    fn pinned_property<'v>(&self, member: &'v Value, pointer: &str) -> Option<&'v str>
    where
        Self: 'v,
    {
        let member = self.resolved(member, pointer.to_string()).0;
        member
            .get("properties")?
            .as_object()?
            .values()
            .find_map(own_pin)
    }

    /// Per object member, the first of its properties no other object member has
    /// (`{wait_timer}` beside `{reviewers}`: `WaitTimer`, `Reviewers`).
    fn own_property_names(&self, members: &[Option<&Value>], pointer: &str) -> Vec<Option<String>> {
        let properties: Vec<Vec<&String>> = members
            .iter()
            .map(|member| {
                member
                    .map(|m| self.resolved(m, pointer.to_string()).0)
                    .and_then(|m| m.get("properties")?.as_object())
                    .map(|p| p.keys().collect())
                    .unwrap_or_default()
            })
            .collect();
        let objects = properties.iter().filter(|p| !p.is_empty()).count();
        properties
            .iter()
            .enumerate()
            .map(|(i, mine)| {
                if objects < 2 {
                    return None;
                }
                mine.iter()
                    .find(|name| {
                        properties
                            .iter()
                            .enumerate()
                            .all(|(j, theirs)| j == i || !theirs.contains(name))
                    })
                    .map(|name| camel(name))
            })
            .collect()
    }

    /// The name a member's type gives it.
    fn type_word(&self, member: &Value, pointer: &str) -> Option<String> {
        let member = self.resolved(member, pointer.to_string()).0;
        let ty = match member.get("type") {
            Some(Value::String(t)) => t.as_str(),
            Some(Value::Array(types)) => types
                .iter()
                .filter_map(Value::as_str)
                .find(|t| *t != "null")?,
            _ if member.get("properties").is_some() => "object",
            _ if member.get("items").is_some() => "array",
            _ => return None,
        };
        Some(match ty {
            "string" => match member.get("format").and_then(Value::as_str) {
                Some("date-time") => "DateTime".into(),
                Some("date") => "Date".into(),
                Some("binary") => "Bytes".into(),
                _ => "String".into(),
            },
            "integer" => "Integer".into(),
            "number" => "Number".into(),
            "boolean" => "Boolean".into(),
            "object" => "Object".into(),
            "array" => {
                let items = member.get("items");
                let item = items.and_then(|items| {
                    component_of(items)
                        .map(|c| camel(&c))
                        .or_else(|| items.get("title").and_then(Value::as_str).map(camel))
                        .or_else(|| {
                            let word = self.type_word(items, pointer)?;
                            (word != "Object").then_some(word)
                        })
                });
                format!("{}List", item.unwrap_or_default())
            }
            _ => return None,
        })
    }
}

/// The values of an "open enum" (`anyOf: [{type: string}, {type: string, enum: [...]}]`: any
/// string, these ones known), when the union is one; a `null` member adds `null`.
pub(super) fn open_enum(variants: &[Value]) -> Option<Vec<Value>> {
    let mut values = Vec::new();
    let (mut plain, mut known) = (false, false);
    for member in variants {
        let map = member.as_object()?;
        if map.get("type").is_some_and(|t| t == "null") {
            values.push(Value::Null);
            continue;
        }
        let string = map.get("type").is_none_or(|t| t == "string");
        if !string
            || ["$ref", "format", "oneOf", "anyOf", "allOf"]
                .iter()
                .any(|k| map.contains_key(*k))
        {
            return None;
        }
        if let Some(pinned) = map.get("const") {
            values.push(Value::String(pinned.as_str()?.into()));
            known = true;
        } else if let Some(listed) = map.get("enum") {
            let listed = listed.as_array()?;
            if !listed.iter().all(Value::is_string) {
                return None;
            }
            values.extend(listed.iter().cloned());
            known = true;
        } else if map.contains_key("type") {
            plain = true;
        } else {
            return None;
        }
    }
    (plain && known).then_some(values)
}

/// Whether a union only constrains an object's own properties (`anyOf: [{required: [a]},
/// {required: [b]}]` beside `properties`: at least one of them; GitHub's `{type: object,
/// maxProperties: 0}` member: or none): a constraint the registry checks, not a choice of
/// shapes, so the type is the object.
pub(super) fn only_required(variants: &[Value], map: &Map<String, Value>) -> bool {
    if !map.get("properties").is_some_and(Value::is_object) {
        return false;
    }
    let constraint = |key: &str, value: &Value| match key {
        "required" | "description" | "title" | "minProperties" | "maxProperties" => true,
        "type" => value == "object",
        _ => false,
    };
    !variants.is_empty()
        && variants.iter().all(|member| {
            member
                .as_object()
                .is_some_and(|member| member.iter().all(|(k, v)| constraint(k, v)))
        })
}
