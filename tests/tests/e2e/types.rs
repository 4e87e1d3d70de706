//! Faithful types in the checked-in crates: tagged unions (train-travel's payment source is
//! told apart by its `object`), formatted values (petstore's `born` date and `x-request-id`
//! UUID), and what a value that does not fit its type becomes, from the server and from a
//! tool call.

#![allow(clippy::unwrap_used)] // Tests state their expectations with unwrap.

use harness_e2e::serve;
use harness_gen_runtime::http::Error;
use harness_gen_runtime::{Audience, Issue, ToolError};
use serde_json::{Value, json};
use train_travel::types::{
    BookingPaymentRequestSource, BookingPaymentRequestSourceBankAccount,
    BookingPaymentRequestSourceCard, BookingPaymentSource,
    BookingPaymentSourceBankAccountAccountType,
};

fn card() -> Value {
    json!({"object": "card", "name": "J. Doe", "number": "4242424242424242", "cvc": "123",
        "exp_month": 12, "exp_year": 2030, "address_country": "FR"})
}

#[test]
fn a_tagged_union_reads_the_member_its_tag_names_and_writes_it_back_unchanged() {
    let source: BookingPaymentSource = serde_json::from_value(card()).unwrap();
    let BookingPaymentSource::Card(read) = &source else {
        panic!("{source:?}")
    };
    assert_eq!(read.exp_year, 2030);
    assert_eq!(serde_json::to_value(&source).unwrap(), card());

    let bank = json!({"object": "bank_account", "name": "J. Doe", "number": "0001",
        "account_type": "individual", "bank_name": "B", "country": "FR"});
    let source: BookingPaymentSource = serde_json::from_value(bank.clone()).unwrap();
    assert!(
        matches!(source, BookingPaymentSource::BankAccount(_)),
        "{source:?}"
    );
    assert_eq!(serde_json::to_value(&source).unwrap(), bank);
}

#[test]
fn a_member_the_description_does_not_list_is_kept_as_sent() {
    let wallet = json!({"object": "wallet", "provider": "x", "nested": {"a": [1, 2]}});
    let source: BookingPaymentSource = serde_json::from_value(wallet.clone()).unwrap();
    let BookingPaymentSource::Unknown(kept) = &source else {
        panic!("{source:?}")
    };
    assert_eq!(kept, &wallet);
    assert_eq!(serde_json::to_value(&source).unwrap(), wallet);
    // No tag at all is unknown too, not an error.
    let untagged: BookingPaymentSource = serde_json::from_value(json!({"name": "x"})).unwrap();
    assert!(matches!(untagged, BookingPaymentSource::Unknown(_)));
}

#[test]
fn a_tagged_member_that_does_not_fit_is_an_error_located_inside_it() {
    let mut bad = card();
    bad["exp_month"] = json!("December");
    let error = serde_json::from_value::<BookingPaymentSource>(bad)
        .unwrap_err()
        .to_string();
    assert!(
        error.starts_with("at `/exp_month`: invalid type"),
        "{error}"
    );
    assert!(!error.contains("December"), "{error}");
}

/// What a request sends is built from the request view (`BookingPaymentRequest`: the card's
/// write-only `cvc` required), what a reply carries read into the reply view.
#[test]
fn constructors_set_the_tag_of_a_union_member() {
    let built = BookingPaymentRequestSource::Card(BookingPaymentRequestSourceCard::new(
        "J. Doe",
        "4242424242424242",
        "123",
        12,
        2030,
        "FR",
    ));
    assert_eq!(serde_json::to_value(&built).unwrap(), card());
    let bank = BookingPaymentRequestSourceBankAccount::new(
        "J. Doe",
        "0001",
        BookingPaymentSourceBankAccountAccountType::Individual,
        "B",
        "FR",
    );
    let written = serde_json::to_value(BookingPaymentRequestSource::BankAccount(bank)).unwrap();
    assert_eq!(written["object"], "bank_account");
}

/// A reply need not carry what only requests send: the card the server reads back without
/// its write-only `cvc` is still a card.
#[test]
fn a_reply_without_write_only_values_reads() {
    let mut read_back = card();
    let fields = read_back.as_object_mut().unwrap();
    fields.remove("cvc");
    let source: BookingPaymentSource = serde_json::from_value(read_back).unwrap();
    let BookingPaymentSource::Card(card) = &source else {
        panic!("{source:?}")
    };
    assert_eq!(card.cvc, None);
}

#[tokio::test]
async fn formatted_values_read_as_their_types() {
    use petstore::types::*;
    let base = serve().await;
    let pets = crate::petstore::client(&base)
        .list_pets(&ListPetsInput::new().x_request_id(formats::Uuid::from_u128(7)))
        .await
        .unwrap();
    let born = pets[2].born.unwrap();
    assert_eq!(born, formats::Date::from_ymd_opt(2020, 1, 1).unwrap());
}

#[tokio::test]
async fn a_malformed_date_from_the_server_is_an_error_at_its_pointer_without_the_value() {
    use petstore::types::*;
    let base = serve().await;
    let error = crate::petstore::client(&base)
        .get_pet(&GetPetInput::new(8))
        .await
        .unwrap_err();
    let Error::InvalidResponse { pointer, reason } = &error else {
        panic!("{error:?}")
    };
    assert_eq!(pointer, "/born");
    assert!(!reason.contains("sometime"), "{reason}");
    assert!(
        error
            .to_string()
            .starts_with("unexpected response at `/born`: "),
        "{error}"
    );
}

#[tokio::test]
async fn a_tool_input_that_fits_the_schema_but_not_its_format_is_invalid_input_at_its_pointer() {
    let base = serve().await;
    let registry = petstore::registry(crate::petstore::client(&base)).unwrap();
    let error = registry
        .invoke(
            Audience::Mcp,
            "list_pets",
            json!({"x_request_id": "not-a-uuid"}),
        )
        .await
        .unwrap_err();
    assert_eq!(
        error,
        ToolError::InvalidInput {
            tool: "list_pets".into(),
            issues: vec![Issue {
                pointer: "/x_request_id".into(),
                keyword: "format".into()
            }],
        }
    );
}
