use super::*;

fn parse(args: &[&str]) -> Options {
    let mut all = vec!["srv".into()];
    all.extend(args.iter().map(Into::into));
    options("srv", "1.0.0", all, &[&Pages]).unwrap()
}

#[test]
fn results_are_cut_at_a_mebibyte_unless_told_otherwise() {
    assert_eq!(parse(&[]).max_result_bytes, Some(1024 * 1024));
    let told = parse(&["--max-result-bytes", "100000"]);
    assert_eq!(told.max_result_bytes, Some(100_000));
    assert_eq!(parse(&["--max-result-bytes", "0"]).max_result_bytes, None);
}

#[test]
fn stream_results_keep_ten_thousand_events_unless_told_otherwise() {
    assert_eq!(parse(&[]).max_events, 10_000);
    assert_eq!(parse(&["--max-events", "3"]).max_events, 3);
}

#[test]
fn tools_are_chosen_by_name_by_exclusion_and_read_only() {
    assert_eq!(parse(&[]).selection, Selection::default());
    let chosen = parse(&[
        "--tool",
        "a",
        "--tool",
        "b",
        "--exclude-tool",
        "c",
        "--read-only",
    ]);
    assert_eq!(
        chosen.selection,
        Selection {
            tools: vec!["a".into(), "b".into()],
            tags: Vec::new(),
            exclude: vec!["c".into()],
            read_only: true,
        }
    );
}

#[test]
fn the_whole_listing_is_one_page_unless_a_page_size_is_given() {
    assert_eq!(parse(&[]).page_size, None);
    assert_eq!(parse(&["--page-size", "50"]).page_size, Some(50));
    assert_eq!(parse(&["--page-size", "0"]).page_size, None);
}

#[test]
fn stdio_is_the_default_and_http_binds_loopback_unless_told_otherwise() {
    assert_eq!(parse(&[]).transport, Transport::Stdio);
    assert_eq!(
        parse(&["--http"]).transport,
        Transport::Http("127.0.0.1:8080".parse().unwrap())
    );
    assert_eq!(
        parse(&["--http", "0.0.0.0:9000"]).transport,
        Transport::Http("0.0.0.0:9000".parse().unwrap())
    );
}

/// Pages to mount, as the dashboard is.
struct Pages;

impl Mount for Pages {
    fn option(&self) -> (&'static str, &'static str) {
        ("pages", "Also serve the pages")
    }

    fn path(&self) -> &'static str {
        "/pages"
    }

    fn routes(&self, _: Site<'_>) -> Result<axum::Router, String> {
        Ok(axum::Router::new())
    }
}

#[test]
fn mounted_pages_are_off_unless_asked_for_and_need_http() {
    assert!(parse(&["--http"]).mounts.is_empty());
    let mounted = parse(&["--http", "--pages"]).mounts;
    assert_eq!(
        mounted.iter().map(|m| m.path()).collect::<Vec<_>>(),
        ["/pages"]
    );
    let args = ["srv", "--pages"].map(std::ffi::OsString::from).to_vec();
    assert!(options("srv", "1.0.0", args, &[&Pages]).is_err());
    let args = ["srv", "--http", "--pages"]
        .map(std::ffi::OsString::from)
        .to_vec();
    assert!(
        options("srv", "1.0.0", args, &[]).is_err(),
        "no such option without the mount"
    );
}

#[test]
fn discovery_is_automatic_unless_turned_on_or_off_and_pins_add_tools() {
    assert_eq!(parse(&[]).discovery, None);
    assert_eq!(parse(&["--discovery", "on"]).discovery, Some(true));
    assert_eq!(parse(&["--discovery", "off"]).discovery, Some(false));
    assert_eq!(parse(&["--pin", "a", "--pin", "b"]).pinned, ["a", "b"]);
    assert_eq!(parse(&["--max-tool-name", "40"]).max_tool_name, Some(40));
    assert_eq!(parse(&[]).schema_profile, SchemaProfile::Standard);
    assert_eq!(
        parse(&["--schema-profile", "inlined"]).schema_profile,
        SchemaProfile::Inlined
    );
    let mut all: Vec<std::ffi::OsString> = vec!["srv".into()];
    all.extend(["--discovery", "sometimes"].map(Into::into));
    assert!(options("srv", "1.0.0", all, &[]).is_err());
}
