use super::*;

#[test]
fn locales_of_the_bcp47_form_pass_and_others_are_named() {
    for ok in [
        "en",
        "de-DE",
        "zh-Hans-CN",
        "es-419",
        "fil-PH",
        "sr-Latn-RS",
    ] {
        assert!(is_locale(ok), "{ok}");
    }
    for bad in [
        "",
        "d",
        "de_DE",
        "de-",
        "-DE",
        "1e-DE",
        "de--DE",
        "de-DE-toolongsubtag",
        "de DE",
    ] {
        assert!(!is_locale(bad), "{bad}");
        let err = Emulation::new().locale(bad).validate().unwrap_err();
        assert!(err.to_string().contains("\"de-DE\""), "{err}");
    }
}

#[test]
fn time_zone_ids_of_the_iana_form_pass_and_others_are_named() {
    for ok in [
        "UTC",
        "Europe/Berlin",
        "America/Argentina/Buenos_Aires",
        "Etc/GMT+5",
        "America/Port-au-Prince",
    ] {
        assert!(is_timezone_id(ok), "{ok}");
    }
    for bad in [
        "",
        "Berlin",
        "Europe/",
        "/Berlin",
        "Europe Berlin",
        "+01:00",
        "Europe/../../etc/passwd",
        "A/B/C/D",
    ] {
        assert!(!is_timezone_id(bad), "{bad}");
        let err = Emulation::new().timezone_id(bad).validate().unwrap_err();
        assert!(err.to_string().contains("Europe/Berlin"), "{err}");
    }
}

#[test]
fn a_device_sets_its_metrics_and_an_unknown_one_lists_the_names() {
    let e = Emulation::device("iPhone 15").unwrap();
    assert_eq!(e.viewport, Some((393, 659)));
    assert_eq!(e.device_scale_factor, Some(3.0));
    assert!(e.is_mobile && e.has_touch);
    assert!(e.user_agent.as_deref().unwrap().contains("iPhone"));
    e.validate().unwrap();
    let err = Emulation::device("iphone 15").unwrap_err().to_string();
    assert!(err.contains("did you mean \"iPhone 15\""), "{err}");
    assert!(
        err.contains("Pixel 7") && err.contains("Desktop Firefox"),
        "{err}"
    );
    let err = Emulation::device("Nokia 3310").unwrap_err().to_string();
    assert!(!err.contains("did you mean"), "{err}");
}

#[test]
fn every_device_is_valid_known_and_named_once() {
    let names = devices::names();
    for d in devices::DEVICES {
        assert!(devices::known(d.name));
        assert_eq!(
            names.iter().filter(|n| **n == d.name).count(),
            1,
            "{}",
            d.name
        );
        Emulation::new().with_device(d).validate().unwrap();
    }
    assert!(!devices::known("iPhone 99"));
    for wanted in [
        "iPhone 15",
        "Pixel 7",
        "iPad Pro 11",
        "Galaxy Tab S4",
        "Desktop Chrome",
        "Desktop Firefox",
        "Desktop Safari",
    ] {
        assert!(devices::known(wanted), "{wanted}");
    }
}

#[test]
fn permissions_colour_schemes_and_motion_parse_by_their_web_names() {
    assert_eq!(
        "clipboard-read".parse::<Permission>().unwrap(),
        Permission::ClipboardRead
    );
    for p in Permission::ALL {
        assert_eq!(Permission::from_name(p.name()), Some(p));
    }
    let err = "location".parse::<Permission>().unwrap_err().to_string();
    assert!(err.contains("geolocation, notifications"), "{err}");
    assert_eq!("dark".parse::<ColorScheme>().unwrap(), ColorScheme::Dark);
    assert!(
        "Dark"
            .parse::<ColorScheme>()
            .unwrap_err()
            .to_string()
            .contains("no-preference")
    );
    assert_eq!(
        "reduce".parse::<ReducedMotion>().unwrap(),
        ReducedMotion::Reduce
    );
}

#[test]
fn out_of_range_and_multi_line_values_are_refused() {
    let bad = [
        Emulation::new().geolocation(91.0, 0.0),
        Emulation::new().geolocation(0.0, f64::NAN),
        Emulation::new().extra_http_header("X-Ok", "one\r\nX-Injected: 1"),
        Emulation::new().extra_http_header("X Bad", "v"),
        Emulation::new().user_agent("UA\nX: 1"),
        Emulation::new().viewport(50, 800),
        Emulation::new().device_scale_factor(0.0),
    ];
    for e in bad {
        assert!(e.validate().is_err(), "{e:?}");
    }
    let mut e = Emulation::new().http_credentials("u", "p");
    e.http_credentials.as_mut().unwrap().origin = Some("127.0.0.1:80".into());
    assert!(
        e.validate()
            .unwrap_err()
            .to_string()
            .contains("scheme://host")
    );
}

#[test]
fn credentials_never_show_their_password() {
    let e = Emulation::new().http_credentials("admin", "s3cret-pw");
    assert!(!format!("{e:?}").contains("s3cret-pw"));
    assert!(format!("{e:?}").contains("admin"));
}

#[test]
fn a_default_emulation_is_default_and_validates() {
    assert!(Emulation::new().is_default());
    Emulation::new().validate().unwrap();
    assert!(!Emulation::new().offline(true).is_default());
}
