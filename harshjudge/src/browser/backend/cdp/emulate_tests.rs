use super::*;
use crate::browser::backend::cdp::protocol::AuthChallenge;

fn challenge(id: &str, origin: &str) -> AuthRequired {
    AuthRequired {
        request_id: id.into(),
        auth_challenge: AuthChallenge {
            origin: origin.into(),
        },
    }
}

#[test]
fn a_header_given_twice_is_one_with_both_values() {
    let map = header_map(&[
        ("X-A".into(), "1".into()),
        ("X-B".into(), "2".into()),
        ("X-A".into(), "3".into()),
    ]);
    assert_eq!(map["X-A"], "1, 3");
    assert_eq!(map["X-B"], "2");
}

#[test]
fn permissions_have_their_devtools_names() {
    assert_eq!(permission_type(Permission::Camera), "videoCapture");
    assert_eq!(
        permission_type(Permission::ClipboardRead),
        "clipboardReadWrite"
    );
    assert_eq!(permission_type(Permission::Gyroscope), "sensors");
}

#[test]
fn credentials_are_given_once_per_request_and_only_to_their_origin() {
    let auth = Auth::default();
    assert_eq!(
        auth.answer(&challenge("1", "http://a")),
        AuthAnswer::Default
    );
    auth.set(Some(HttpCredentials {
        username: "u".into(),
        password: "p".into(),
        origin: Some("http://a".into()),
    }));
    assert!(auth.is_set());
    let given = AuthAnswer::Provide {
        username: "u".into(),
        password: "p".into(),
    };
    assert_eq!(auth.answer(&challenge("1", "http://a")), given);
    // Asked again: the credentials were wrong.
    assert_eq!(auth.answer(&challenge("1", "http://a")), AuthAnswer::Cancel);
    assert_eq!(auth.answer(&challenge("2", "http://b")), AuthAnswer::Cancel);
    auth.set(None);
    assert!(!auth.is_set());
}
