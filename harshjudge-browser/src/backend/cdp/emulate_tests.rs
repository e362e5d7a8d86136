use super::*;

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
