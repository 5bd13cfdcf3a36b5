use std::collections::HashMap;

use super::*;
use crate::probe::http::parse_url;

fn proxies(vars: &[(&str, &str)], flag: Option<&str>) -> Proxies {
    let vars: HashMap<String, String> = vars
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    Proxies::new(&|n: &str| vars.get(n).cloned(), flag).expect("proxies")
}

/// The proxy a URL goes through, as `host:port`, or `direct`.
fn via(p: &Proxies, url: &str) -> String {
    match p.route(&parse_url(url).unwrap()) {
        Ok(Some(p)) => format!("{}:{}", p.host, p.port),
        Ok(None) => "direct".into(),
        Err(f) => format!("{}", f.code),
    }
}

#[test]
fn each_scheme_takes_its_own_variable_then_all_proxy() {
    let p = proxies(
        &[
            ("HTTP_PROXY", "http://h:1"),
            ("HTTPS_PROXY", "s:2"),
            ("ALL_PROXY", "a:3"),
        ],
        None,
    );
    assert_eq!(via(&p, "http://example.com/"), "h:1");
    assert_eq!(via(&p, "https://example.com/"), "s:2");
    let p = proxies(&[("ALL_PROXY", "a:3")], None);
    assert_eq!(via(&p, "http://example.com/"), "a:3");
    assert_eq!(via(&p, "https://example.com/"), "a:3");
    // Lower case wins over upper case; an empty value is unset.
    let p = proxies(
        &[
            ("https_proxy", "low:1"),
            ("HTTPS_PROXY", "up:2"),
            ("http_proxy", ""),
            ("HTTP_PROXY", "up:3"),
        ],
        None,
    );
    assert_eq!(via(&p, "https://example.com/"), "low:1");
    assert_eq!(via(&p, "http://example.com/"), "up:3");
    assert_eq!(via(&proxies(&[], None), "https://example.com/"), "direct");
    // Port 1080 when absent (curl).
    assert_eq!(
        via(
            &proxies(&[("HTTPS_PROXY", "http://p.example")], None),
            "https://x/"
        ),
        "p.example:1080"
    );
}

#[test]
fn the_flag_overrides_the_environment_and_none_turns_proxies_off() {
    let env = [("HTTPS_PROXY", "env:1"), ("HTTP_PROXY", "env:1")];
    let p = proxies(&env, Some("http://flag:9"));
    assert_eq!(via(&p, "https://example.com/"), "flag:9");
    assert_eq!(via(&p, "http://example.com/"), "flag:9");
    for off in ["none", "NONE", ""] {
        assert_eq!(via(&proxies(&env, Some(off)), "https://x/"), "direct");
    }
    // NO_PROXY applies to the flag's proxy too (curl's -x with NO_PROXY).
    let p = proxies(&[("NO_PROXY", "x.example")], Some("http://flag:9"));
    assert_eq!(via(&p, "https://x.example/"), "direct");
}

#[test]
fn no_proxy_entries() {
    let np = "example.com, .corp.example ,*.wild.example,10.0.0.0/8,192.168.1.7,::1,[fd00::1]:8443,only.example:8080,fe80::/10";
    let p = proxies(&[("HTTPS_PROXY", "p:1"), ("NO_PROXY", np)], None);
    for direct in [
        "https://example.com/",
        "https://EXAMPLE.com./",
        "https://a.b.example.com/",
        "https://corp.example/",
        "https://x.corp.example/",
        "https://wild.example/",
        "https://10.1.2.3/",
        "https://192.168.1.7:9/",
        "https://[::1]/",
        "https://[fd00::1]:8443/",
        "https://only.example:8080/",
        "https://[fe80::1]/",
    ] {
        assert_eq!(via(&p, direct), "direct", "{direct}");
    }
    for proxied in [
        "https://notexample.com/",
        "https://example.com.evil.example/",
        "https://11.0.0.1/",
        "https://192.168.1.8/",
        "https://[fd00::1]/",
        "https://only.example/",
        "https://[fec0::1]/",
    ] {
        assert_eq!(via(&p, proxied), "p:1", "{proxied}");
    }
    // `*` is every host; lower-case no_proxy wins.
    let p = proxies(
        &[("HTTPS_PROXY", "p:1"), ("no_proxy", "*"), ("NO_PROXY", "")],
        None,
    );
    assert_eq!(via(&p, "https://anything.example/"), "direct");
    // Loopback is not bypassed unless listed (curl).
    let p = proxies(&[("HTTP_PROXY", "p:1")], None);
    assert_eq!(via(&p, "http://127.0.0.1:9/"), "p:1");
    assert_eq!(via(&p, "http://localhost:9/"), "p:1");
}

#[test]
fn credentials_become_basic_and_are_never_shown() {
    let p = parse_proxy("http://us%40er:pa%3Ass/w#rd@proxy.example:3128/").unwrap();
    assert_eq!((p.host.as_str(), p.port), ("proxy.example", 3128));
    // base64("us@er:pa:ss/w#rd")
    assert_eq!(p.authorization(), Some("Basic dXNAZXI6cGE6c3MvdyNyZA=="));
    assert_eq!(p.to_string(), "http://proxy.example:3128");
    assert_eq!(format!("{p:?}"), "ProxyUrl(http://proxy.example:3128)");
    let all = proxies(&[("HTTPS_PROXY", "http://u:hunter2pass@p:1")], None);
    assert!(!format!("{all:?}").contains("hunter2pass"));
    assert!(all.credentials().any(|c| c == "hunter2pass"));
    assert_eq!(base64(b""), "");
    assert_eq!(base64(b"f"), "Zg==");
    assert_eq!(base64(b"fo"), "Zm8=");
    assert_eq!(base64(b"foo"), "Zm9v");
}

#[test]
fn unusable_proxies_fail_the_requests_that_need_them_without_quoting_them() {
    let p = proxies(&[("HTTPS_PROXY", "socks5://u:s3cretpw@p:1080")], None);
    let f = p
        .route(&parse_url("https://x.example/").unwrap())
        .unwrap_err();
    assert_eq!(f.code, FailureCode::ProxyUnsupported);
    assert!(f.message.contains("HTTPS_PROXY") && f.message.contains("`socks5://`"));
    assert!(!f.message.contains("s3cretpw"), "{}", f.message);
    // An http:// request does not use it.
    assert_eq!(via(&p, "http://x.example/"), "direct");
    for bad in ["https://p:1", "socks5h://p"] {
        let f = parse_proxy(bad).unwrap_err();
        assert_eq!(f.0, FailureCode::ProxyUnsupported, "{bad}");
    }
    for bad in ["http://u:pw@", "http://p:port", "http://[::1"] {
        let f = parse_proxy(bad).unwrap_err();
        assert_eq!(f.0, FailureCode::InvalidConfig, "{bad}");
    }
    let e = Proxies::new(&|_| None, Some("socks5://u:s3cretpw@p")).unwrap_err();
    assert!(
        e.contains("proxy-unsupported") && !e.contains("s3cretpw"),
        "{e}"
    );
}
