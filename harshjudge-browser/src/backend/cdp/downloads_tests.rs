//! Downloads: the root's events against a fake browser's page, and a real
//! Chromium's download of an attachment.

use std::time::Duration;

use serde_json::json;
use serde_json::value::RawValue;

use super::super::connection::Received;
use super::super::testing::fake_page;
use super::DownloadState;

fn root_event(method: &str, params: serde_json::Value) -> Received {
    Received {
        method: method.into(),
        params: RawValue::from_string(params.to_string()).expect("JSON"),
    }
}

/// Watching points the context's downloads at the folder; a download of a
/// frame of its page ends in the watch with its name, guid-named path and
/// state, and its load's failure in the page's step log is no error; one of
/// a frame of no page of ours is not reported.
#[tokio::test]
async fn a_download_of_the_contexts_page_reaches_its_watch() {
    let (page, mut fake) = fake_page().await;
    let folder = tempfile::tempdir().expect("a folder");
    let watch = page.watch_downloads(folder.path());
    let browser = async {
        let c = fake.expect("Browser.setDownloadBehavior").await;
        assert_eq!(
            c["params"],
            json!({"behavior": "allowAndName", "browserContextId": "C1",
                "downloadPath": folder.path().to_str().unwrap(), "eventsEnabled": true})
        );
        assert!(c.get("sessionId").is_none(), "a browser command: {c}");
        fake.answer(&c["id"], json!({})).await;
    };
    let (watch, ()) = tokio::join!(watch, browser);
    let mut watch = watch.expect("watching");
    let downloads = page.downloads.clone();
    // The page's navigation to the file, which ends as a download does.
    fake.event(
        "Network.requestWillBeSent",
        json!({"requestId": "L9", "loaderId": "L9", "timestamp": 1.0, "wallTime": 1000.0,
            "type": "Document", "frameId": "T1",
            "request": {"url": "http://a/export", "method": "GET", "headers": {}}}),
    )
    .await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    let stranger = json!({"frameId": "OTHER", "guid": "g0", "url": "http://b/x",
        "suggestedFilename": "x.bin"});
    assert!(downloads.event(&root_event("Browser.downloadWillBegin", stranger)));
    let began = json!({"frameId": "T1", "guid": "g1", "url": "http://a/export",
        "suggestedFilename": "report.csv"});
    assert!(downloads.event(&root_event("Browser.downloadWillBegin", began)));
    let progress = |guid: &str, state: &str| {
        root_event(
            "Browser.downloadProgress",
            json!({"guid": guid, "state": state, "totalBytes": 3, "receivedBytes": 3}),
        )
    };
    assert!(downloads.event(&progress("g1", "inProgress")));
    assert!(downloads.event(&progress("g0", "completed")));
    assert!(downloads.event(&progress("g1", "completed")));
    assert!(!downloads.event(&root_event("Target.targetCreated", json!({}))));
    let got = watch
        .next(Duration::from_secs(5))
        .await
        .expect("a download");
    assert_eq!(
        (got.suggested_filename.as_str(), got.url.as_str(), got.state),
        ("report.csv", "http://a/export", DownloadState::Completed)
    );
    assert_eq!(got.path, folder.path().join("g1"));
    let none = watch.next(Duration::from_millis(100)).await;
    assert!(
        none.is_err(),
        "the stranger's download is not ours: {none:?}"
    );

    fake.event(
        "Network.loadingFailed",
        json!({"requestId": "L9", "timestamp": 1.2, "errorText": "net::ERR_ABORTED", "canceled": true}),
    )
    .await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    let (console, _) = page.step_log().peek(true);
    assert!(
        console.iter().all(|c| c.level != "error") && console.len() == 1,
        "the aborted load became a download: {console:?}"
    );
}

/// A real Chromium: a link to an attachment downloads it into the folder
/// under its guid, with the name the response gave.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_real_attachment_is_downloaded_under_its_guid() {
    use super::super::testing::{real_page, serve_pages};
    let base = serve_pages(&[
        ("/", "", "<a href='/export'>export</a>"),
        (
            "/export",
            "content-disposition: attachment; filename=\"report.csv\"\r\n",
            "a,b\n1,2\n",
        ),
    ])
    .await;
    let (browser, context, page) = real_page().await;
    page.navigate(&format!("{base}/")).await.expect("loaded");
    let folder = tempfile::tempdir().expect("a folder");
    let mut watch = context
        .watch_downloads(folder.path())
        .await
        .expect("watching");
    page.evaluate("document.querySelector('a').click()")
        .await
        .expect("clicked");
    let got = watch
        .next(Duration::from_secs(10))
        .await
        .expect("a download");
    assert_eq!(got.state, DownloadState::Completed);
    assert_eq!(got.suggested_filename, "report.csv");
    assert_eq!(got.url, format!("{base}/export"));
    assert_eq!(got.path, folder.path().join(&got.guid));
    assert_eq!(
        std::fs::read_to_string(&got.path).expect("the file"),
        "a,b\n1,2\n"
    );
    let (console, _) = page.take_console_network().await;
    let export: Vec<_> = console
        .iter()
        .filter(|c| c.url.as_deref().is_some_and(|u| u.ends_with("/export")))
        .map(|c| (c.level.as_str(), c.source.as_str()))
        .collect();
    assert!(
        export.iter().all(|(level, _)| *level != "error"),
        "the load that became a download is no error: {console:?}"
    );
    browser.close().await;
}
