package locale

import (
	"golang.org/x/text/message/catalog"
)

// japaneseText is the catalog's Japanese text: the keys of english.go, in its order
// (a new English key goes in the same place here), translated for meaning.
// The comments are english.go's.
var japaneseText = map[Key]catalog.Message{
	// What a room's state is called, in a list or a status line.
	"state.draft":    text("招待を送信済み"),
	"state.awaiting": text("交渉中"),
	"state.agreed":   text("合意済み"),
	"state.closed":   text("終了（%[1]s）"), // the close reason in words

	// Why a room closed, as the end of "… is closed: ".
	"closed.rejected":        text("条件が拒否されました"),
	"closed.cancelled":       text("一方が撤退しました"),
	"closed.withdrawn":       text("招待が取り下げられました"),
	"closed.expired":         text("%[1]d時間以内に誰も招待に応答しませんでした"),
	"closed.lapsed":          text("合意のないまま期限が過ぎました"),
	"closed.account_deleted": text("相手側のアカウントが削除されました"),

	// A value outside the reader's limits, by bound, never by number.
	"bound.min":     text("あなたの最小値を下回っています"),
	"bound.max":     text("あなたの最大値を上回っています"),
	"bound.one_of":  text("あなたが受け入れる値のいずれでもありません"),
	"bound.equals":  text("あなたが求める値ではありません"),
	"bound.outside": text("あなたの上限・下限の範囲外：%[1]s"), // the bounds in words, joined

	// What a side did, after "Your side" or "Their side".
	"verdict.offer":            text("条件を提示しました"),
	"verdict.counter":          text("対案を出しました"),
	"verdict.need_more_detail": text("詳細を求めました"),
	"verdict.approve":          text("承認しました"),
	"verdict.reject":           text("条件を拒否しました"),
	"verdict.cancel":           text("撤退しました"),
	"verdict.preapprove":       text("どの選択肢でもよいと確認しました"),
	"verdict.join":             text("参加しました"),

	// What a confirmation asks a human to do, after "asks you to".
	"ask.approve":    text("この条件を承認する"),
	"ask.reject":     text("提示されている条件を拒否する"),
	"ask.cancel":     text("交渉から撤退する"),
	"ask.preapprove": text("これらの選択肢のどれでも受け入れる"),
	// The same, as a question (a mail's subject and heading).
	"ask.question.approve":    text("この条件を承認しますか？"),
	"ask.question.reject":     text("条件を拒否しますか？"),
	"ask.question.cancel":     text("撤退しますか？"),
	"ask.question.preapprove": text("これらの選択肢のどれでも受け入れますか？"),
	// What follows from confirming, when it is more than the verdict says.
	"ask.after.reject":     text("拒否するとルームは完全に終了します。"),
	"ask.after.cancel":     text("ルームは双方にとって終了し、再開できません。"),
	"ask.after.preapprove": text("相手側が1つを選び、その時点で合意が成立します。"),
	// The confirm button's word, after "Confirm: ".
	"ask.button.approve":    text("承認する"),
	"ask.button.reject":     text("拒否する"),
	"ask.button.cancel":     text("撤退する"),
	"ask.button.preapprove": text("どの選択肢でもよい"),
	"ask.heading":           text("エージェントからの確認依頼：%[1]s"), // ask.<verdict>
	"ask.confirm":           text("確定：%[1]s"),            // ask.button.<verdict>

	// Whose turn it is, for an agent's human; turn.you for a person's seat.
	"turn.nobody": text("誰の番でもありません"),
	"turn.yours":  text("あなたの側の番"),
	"turn.theirs": text("相手の番"),
	"turn.you":    text("あなたの番"),

	// Where a room stands in the list of rooms.
	"rank.waiting_for_you":   text("あなたの回答待ち"),
	"rank.waiting_for_human": text("担当者の回答待ち"),
	"rank.your_agent":        text("あなたのエージェントの番"),
	"rank.closed":            text("終了"),

	// What became of a confirmation the human answered.
	"result.applied":         text("完了：回答が反映されました。"),
	"result.applied_verdict": text("完了：あなたの側が%[1]s。"), // verdict.<verdict>
	"result.agreed":          text("合意が成立しました。"),
	"result.declined":        text("確定しませんでした。エージェントに通知され、ルームは変わりません。"),
	"result.void":            text("回答は反映されませんでした：%[1]s。"),
	"result.waiting":         text("まだ回答を待っています。"),

	// Why an invitation cannot be answered.
	"refusal.withdrawn": text("この招待は送信者によって取り下げられました。"),
	"refusal.expired":   text("この招待は期限切れです：%[1]d時間以内に誰も応答しませんでした。"),
	"refusal.used":      text("この招待にはすでに回答済みです。ご自身の場合は、そのとき受け取った個人用リンクを開いてください。"),
	"refusal.deadline":  text("この招待にはもう回答できません：期限が過ぎています。"),
	"refusal.other":     text("この招待にはもう回答できません（%[1]s）。"),

	// A card: the terms on the table, in the reader's labels.
	"card.option":     text("選択肢 %[1]d／%[2]d"),
	"card.theirs":     text("相手側の項目"),
	"card.missing":    text("未記入"),
	"card.new_schema": text("相手側はあなたがこれまで合意したことのないフォームを使っています。各項目を確認してください。"),
	"card.no_deal":    text("%[1]sについては合意できません：あなたと相手の上限・下限を同時に満たせません（どちらの数値も表示されません）。"),

	// How long until a moment, in a sentence ("The deadline is … (in about 3 hours)").
	"until.now":     text("今"),
	"until.minutes": text("約%[1]d分後"),
	"until.hours":   text("約%[1]d時間後"),
	"until.days":    text("約%[1]d日後"),

	// How long is left, in a countdown beside a deadline.
	"left.passed":  text("期限切れ"),
	"left.minutes": text("残り%[1]d分"),
	"left.hours":   text("残り%[1]d時間%02[2]d分"),
	"left.days":    text("残り%[1]d日"),

	// What a delivery in the log was about.
	"topic.request":  text("確認依頼"),
	"topic.reminder": text("リマインダー"),
	"topic.agreed":   text("合意"),
	"topic.closed":   text("終了"),
	"topic.no_deal":  text("合意不可"),
	"topic.test":     text("テスト"),
	"topic.invite":   text("招待"),

	// A member's role in an account.
	"role.owner":  text("オーナー"),
	"role.admin":  text("管理者"),
	"role.member": text("メンバー"),

	// The mail inviting a person to join an account: who invites, the
	// account's name, the role (role.<role>), the link's expiry.
	"member_invite.subject": text("%[1]sさんがTaaskyの%[2]sへの参加を招待しています"),
	"member_invite.heading": text("Taaskyで%[1]sに参加"),
	"member_invite.intro":   text("%[1]sさんが、%[3]sとして%[2]sに参加するようあなたを招待しています。メンバーはAIエージェントをTaaskyに接続し、エージェントが合意した内容を確認します。"),
	"member_invite.action":  text("招待を受ける"),
	"member_invite.expires": text("このリンクは1回だけ使え、%[1]sに期限切れになります。"),
	"member_invite.sign_in": text("受けるには%[1]sでサインインしてください：招待はこのアドレス宛てです。"),
	"member_invite.why":     text("%[1]sさんがあなたを招待するためにTaaskyにアドレスを伝えました。再度招待されない限り、これ以上は送信されません。"),

	// A note on a room's timeline that is not a move.
	"note.member_left": text("%[1]sはもうアカウントのメンバーではありません：この側の確認には今後オーナーが回答します。"),

	// for_your_human: the room in plain text, for an agent to show its human.
	"human.title":          text("交渉：%[1]q（招待者の言葉）。"),
	"human.draft":          text("相手側が招待を受けるのを待っています。"),
	"human.your_turn":      text("あなたの側の番です。"),
	"human.their_turn":     text("相手側を待っています。"),
	"human.agreed":         text("合意成立：双方が以下の条件を確認しました。"),
	"human.closed":         text("終了（%[1]s）。何も合意されませんでした。"), // closed.<reason>
	"human.deadline":       text("期限：%[1]s。"),
	"human.options.yours":  text("あなたの側が提示した選択肢（1つを選びます）："),
	"human.options.theirs": text("相手側が提示した選択肢（1つを選びます）："),
	"human.terms.yours":    text("あなたの側が提示した条件："),
	"human.terms.theirs":   text("相手側が提示した条件："),
	"human.option":         text("%[1]s："), // card.option
	"human.their_field":    text("%[1]s（相手側の項目）"),
	"human.not_given":      text("指定なし"),
	"human.their_words":    text("%[1]s（相手の言葉）"),
	"human.outside":        text("範囲外：確定すると、それでも受け入れることになります"),
	"human.no_deal_field":  text("この項目では合意できません"),
	"human.confirm":        text("あなたの確認が必要です：%[1]s。"), // ask.<verdict>
	"human.confirm_where":  text("リンクが送られています。ダッシュボードからも回答できます。"),

	// Values that are words, in a card: a yes/no field.
	"value.true":  text("はい"),
	"value.false": text("いいえ"),

	// Where a delivery went, and what became of it (jobs' Channel, Status).
	"channel.email":   text("メール"),
	"channel.push":    text("Webプッシュ"),
	"status.queued":   text("待機中"),
	"status.sent":     text("送信済み"),
	"status.retrying": text("再試行中"),
	"status.failed":   text("失敗"),
	"status.skipped":  text("スキップ"),
	"status.gone":     text("削除済み"),

	// The regions of the time-zone picker (the IANA name's first part).
	"region.utc":        text("協定世界時"),
	"region.africa":     text("アフリカ"),
	"region.america":    text("南北アメリカ"),
	"region.antarctica": text("南極"),
	"region.arctic":     text("北極"),
	"region.asia":       text("アジア"),
	"region.atlantic":   text("大西洋"),
	"region.australia":  text("オーストラリア"),
	"region.europe":     text("ヨーロッパ"),
	"region.indian":     text("インド洋"),
	"region.pacific":    text("太平洋"),

	// A time zone a browser told that does not exist.
	"zone.unknown": text("time_zone：%[1]q はIANAタイムゾーン名（例：Asia/Tokyo）ではありません。"),

	// Every page's frame.
	"layout.skip":       text("本文へ移動"),
	"layout.nav":        text("メイン"),
	"layout.rooms":      text("ルーム"),
	"layout.waiting":    text("担当者の回答待ち"),
	"layout.settings":   text("設定"),
	"layout.sign_out":   text("サインアウト"),
	"layout.zone_offer": text("時刻はUTCで表示されています。"),
	"layout.zone_use":   text("次のタイムゾーンで表示："), // followed by the browser's zone
	"layout.signed_in":  text("%[1]sでサインイン中・時刻は%[2]s"),
	"layout.tagline":    text("Taasky：エージェントが交渉し、あなたが合意します。"),
	"layout.copy":       text("コピー"),
	"layout.copied":     text("コピーしました"),

	// The signed-out home page.
	"welcome.heading":    text("エージェントが交渉し、あなたが合意します。"),
	"welcome.lead":       text("Taaskyでは、2人のAIエージェントが条件（会議の時間、場所、報酬など）をすり合わせ、承諾できるのは本人だけです。すべての承諾は、合意する内容を正確に示すカードの上で、あなた自身が確定します。"),
	"welcome.sign_in":    text("サインイン"),
	"welcome.invited":    text("招待を受けましたか？受け取った招待リンクを開いてください。回答にアカウントは不要です。"),
	"signed_out.heading": text("サインアウトしました"),
	"signed_out.text":    text("このブラウザーでのセッションは終了しました。"),
	"signed_out.again":   text("もう一度サインイン"),

	// The error page.
	"error.title":     text("問題が発生しました"),
	"error.back":      text("Taaskyに戻る"),
	"error.too_many":  text("リクエストが多すぎます"),
	"error.try_again": text("お使いのネットワークからのリクエストが多すぎます。%[1]d秒後にもう一度お試しください。"),

	// A card on a page.
	"card.label":          text("提示されている条件"),
	"card.new_schema_tag": text("新しいスキーマ。"),
	"card.options":        text("%[1]d件の選択肢："),
	"card.outside":        text("範囲外：承認すると、それでも受け入れることになります。"),
	"card.not_said":       text("相手の条件には記載がありません"),
	"card.hash_summary":   text("この条件の指紋"),
	"card.hash_explained": text("エージェントはこの subject_hash でまさにこの条件を指します："),
	"card.pick":           text("これを選ぶ"),
	"card.pick_option":    text("%[1]sを選ぶ"), // card.option
	"card.approve":        text("承認する"),

	// A room's timeline.
	"timeline.heading": text("経過"),
	"timeline.yours":   text("あなたの側"),
	"timeline.theirs":  text("相手側"),
	"timeline.round":   text("ラウンド%[1]d"),
	"timeline.about":   text("対象："), // followed by field names
	"timeline.empty":   text("まだ何も提示されていません。"),

	// What a person can answer, on any page.
	"answer.decline":       text("確定しない"),
	"answer.propose_else":  text("別の案を出す"),
	"answer.send_proposal": text("提案を送信"),

	// The form generated from a schema.
	"form.optional": text("（任意）"),
	"form.from":     text("開始"),
	"form.to":       text("終了"),
	"form.zone":     text("タイムゾーン"),
	"form.none":     text("（なし）"),
	"form.choose":   text("選択してください…"),
	"form.amount":   text("金額"),
	"form.currency": text("通貨"),
	"form.repeated": text("複数の値：必要な行数だけ入力してください。空の行は無視されます。"),

	// The list of rooms.
	"rooms.heading":        text("あなたのルーム"),
	"rooms.filter":         text("ルームを絞り込む"),
	"rooms.filter_all":     text("すべて"),
	"rooms.filter_waiting": text("担当者の回答待ち"),
	"rooms.filter_live":    text("進行中"),
	"rooms.filter_agreed":  text("合意済み"),
	"rooms.filter_closed":  text("終了"),
	"rooms.untitled":       text("ルーム%[1]s"),
	"rooms.start_heading":  text("アカウントから始めましょう"),
	"rooms.start_text":     text("まだどのアカウントにも所属していません。ご自身またはチーム用にアカウントを作成し、エージェントを接続してください。または、受け取った招待のリンクを開いてください。"),
	"rooms.create_account": text("アカウントを作成"),
	"rooms.none_here":      text("ここにルームはありません。"),
	"rooms.none_yet":       text("まだルームはありません。エージェントが交渉を開始または参加すると、ここに表示されます。"),
	"rooms.first_page":     text("最初のページ"),
	"rooms.next_page":      text("次のページ"),

	// A room's page, for an account's member.
	"room.side_with":          text("%[1]s（%[2]s側）、相手：%[3]s"),
	"room.side_waiting":       text("%[1]s（%[2]s側）、招待への回答待ち"),
	"room.round":              text("ラウンド%[1]s"), // the round's number, marked up
	"room.deadline":           text("期限"),
	"room.answered_by_you":    text("回答者：あなた"),
	"room.answered_by_owners": text("回答者：アカウントのオーナー"),
	"room.answered_by":        text("回答者：%[1]s"),
	"room.agreed":             text("合意成立：双方が同じ条件を承認しました。"),
	"room.answer_marked":      text("あなたの回答は、下で印の付いた条件に対するものです。"),
	"room.owners_answer":      text("この側の担当者はアカウントを離れました。オーナーが回答します。あなたは経過を見ることができます。"),
	"room.theirs_to_answer":   text("回答するのは%[1]sです（エージェントが依頼しました）。あなたは経過を見ることができます。"),
	"room.tabled_by_you":      text("あなたの側が提示。"),
	"room.tabled_by":          text("%[1]sが提示。あなたの言葉で表示しています。"),
	"room.no_terms":           text("提示されている条件はありません。"),
	"room.limits":             text("あなたの上限・下限"),
	"room.limits_private":     text("（あなただけに表示）"),

	// The page of a one-tap link.
	"onetap.title":          text("確定：%[1]s"), // the room's title
	"onetap.title_untitled": text("確定：交渉"),
	"onetap.with":           text("相手：%[1]s"),
	"onetap.with_person":    text("相手：メールまたはリンクで招待された、アカウントのない人"),
	"onetap.deadline":       text("期限："),
	"onetap.nothing_yet":    text("このページを開いただけでは何も変わっていません。回答はこれらのボタンだけで行われます。"),
	"onetap.not_waiting":    text("この確認はもうあなたの回答を待っていません。"),
	"onetap.used":           text("このリンクは%[1]sに使用されました。各リンクは1回だけ使えます。"),
	"onetap.room_state":     text("ルームの状態：%[1]s。"),
	"onetap.open":           text("Taaskyを開く"),

	// The invitation page, for a person without an account.
	"invite.title":          text("%[1]sからの招待"),
	"invite.heading":        text("%[1]sから合意への招待が届いています"),
	"invite.heading_titled": text("%[1]sから合意への招待が届いています：%[2]s"), // the title, their words
	"invite.title_theirs":   text("タイトルは%[1]sの言葉です。"),
	"invite.answer_by":      text("回答期限"),
	"invite.your_tap":       text("あなたのタップがあなたの回答です。誰もあなたの代わりに回答しません。"),
	"invite.pick_heading":   text("合うものを選んでください"),
	"invite.their_proposal": text("相手の提案"),
	"invite.preapproved":    text("%[1]sはこれらすべてを承諾済みです。あなたの選択で決まります。"),
	"invite.decline":        text("招待を断る"),
	"invite.no_terms":       text("%[1]sはまだ条件を提示していません。今すぐ参加し、提示されたら戻ってきてください。"),
	"invite.join":           text("参加する"),

	// A person's own page in a negotiation (their seat).
	"seat.title":         text("%[1]sへのあなたの回答"),
	"seat.answer_in":     text("回答を受け付けました。"),
	"seat.keep_link":     text("この交渉に戻るために、個人用リンクを保存してください："),
	"seat.with":          text("相手：%[1]s"),
	"seat.agreed":        text("合意成立：お二人が同じ条件を承認しました。"),
	"seat.your_proposal": text("あなたの提案"),
	"seat.no_terms":      text("まだ提示されている条件はありません。"),
	"seat.reject":        text("拒否して終了"),
	"seat.waiting":       text("%[1]sを待っています。このページは自動で更新されます。"),
	"seat.leave":         text("この交渉から離れる"),
	"seat.leave_button":  text("離れて終了"),
	"seat.link":          text("あなたの個人用リンク："),

	// The delivery log.
	"log.heading":       text("配信ログ"),
	"log.intro":         text("Taaskyがあなたに送信した、または送信を試みたすべての通知と、エージェントの依頼でメール送信した招待を、新しい順に表示します。失敗した送信は、間隔を広げながら再試行されます。"),
	"log.pages":         text("ページ"),
	"log.newest":        text("最新"),
	"log.older":         text("以前"),
	"log.nothing_older": text("これより前はありません。"),
	"log.nothing_yet":   text("まだ何も送信されていません。"),
	"log.not_set_up":    text("このサーバーでは通知が設定されていません。"),
	"log.when":          text("日時"),
	"log.what":          text("内容"),
	"log.channel":       text("経路"),
	"log.to":            text("宛先"),
	"log.status":        text("状態"),
	"log.attempts":      text("試行回数"),
	"log.error":         text("エラー"),

	// The page that stops email notices.
	"unsubscribe.heading":       text("メールでのお知らせを停止しますか？"),
	"unsubscribe.what":          text("Taaskyは、リマインダー、合意、ルームの終了、「合意不可」のお知らせをメールで送らなくなります。"),
	"unsubscribe.done_heading":  text("メールでのお知らせは停止しました"),
	"unsubscribe.done":          text("Taaskyは今後、%[1]s宛てにリマインダー、合意、ルームの終了、「合意不可」のお知らせを送りません。"),
	"unsubscribe.requests_stay": text("確認依頼は引き続き届きます。エージェントはあなたなしでは進められないため、リンクで停止することはできません。"),
	"unsubscribe.settings":      text("すべての選択は%[1]sで行えます。"), // a link to Settings
	"unsubscribe.button":        text("メールでのお知らせを停止"),

	// The page that refuses further invitations to an address.
	"refuse.heading":      text("%[1]sへの招待を断りますか？"),
	"refuse.what":         text("今後、誰からの依頼であっても、Taaskyはこのアドレスに交渉への招待をメールで送りません。すでに受け取った招待は引き続き使えます。"),
	"refuse.button":       text("今後の招待を断る"),
	"refuse.done_heading": text("招待は届かなくなりました"),
	"refuse.done":         text("Taaskyは今後、%[1]sに招待を送りません。"),
	"refuse.invalid":      text("このリンクは無効です。招待メールにあるリンクを開いてください。"),

	// The settings page.
	"settings.done.revoked":        text("キーを無効にしました。もう使えません。"),
	"settings.done.zone":           text("タイムゾーンを保存しました。"),
	"settings.done.language":       text("言語を保存しました。"),
	"settings.done.notify":         text("通知の設定を保存しました。"),
	"settings.done.push_on":        text("このブラウザーに通知が届くようになります。"),
	"settings.done.push_off":       text("デバイスを削除しました。今後は通知が届きません。"),
	"settings.done.push_test":      text("テスト通知をデバイスに送信中です。結果は下の配信ログで確認できます。"),
	"settings.done.disconnected":   text("エージェントの接続を解除しました。そのトークンはもう使えません。"),
	"settings.done.push_nothing":   text("テストを送るデバイスがありません。まずこのブラウザーで通知をオンにしてください。"),
	"settings.key_ready":           text("%[1]sの準備ができました"),
	"settings.key_give":            text("このMCP URLとキーをエージェントに渡してください。"),
	"settings.key_once":            text("キーが表示されるのはこの1回だけです。今すぐコピーしてください。"),
	"settings.mcp_url":             text("MCP URL"),
	"settings.key":                 text("キー"),
	"settings.key_header":          text("エージェントはこれをヘッダー%[1]sで送信します。"),
	"settings.account_you_are":     text("（%[1]s、あなたは%[2]s）"), // role.<role>
	"settings.account_mcp":         text("このアカウントのエージェント用MCP URL：%[1]s"),
	"settings.members":             text("メンバー"),
	"settings.members_invitations": text("メンバーと招待"),
	"settings.account_settings":    text("アカウント設定と監査ログ"),
	"settings.agent_owner":         text("所有者：%[1]s"),
	"settings.agent_orphan":        text("担当者がアカウントを離れたため、キーは無効化されています"),
	"settings.oauth_connected":     text("%[1]sがOAuthで接続"),
	"settings.oauth_disconnected":  text("%[1]sに接続解除（接続元：%[2]s）"),
	"settings.last_used":           text("最終使用：%[1]s"),
	"settings.never_used":          text("未使用"),
	"settings.disconnect":          text("接続解除"),
	"settings.disconnect_agent":    text("%[1]sの接続を解除"),
	"settings.revoked":             text("無効化済み"),
	"settings.since":               text("%[1]sから"),
	"settings.revoke":              text("無効にする"),
	"settings.revoke_key":          text("キー%[1]sを無効にする"),
	"settings.another_key":         text("別のキーを発行"),
	"settings.no_agents":           text("まだエージェントはいません。"),
	"settings.agent_name":          text("新しいエージェントの名前"),
	"settings.agent_name_example":  text("例：カレンダーアシスタント"),
	"settings.create_agent":        text("エージェントを作成"),
	"settings.no_account":          text("まだどのアカウントのメンバーでもありません。%[1]sか、受け取った招待のリンクを開いてください。"),
	"settings.zone_heading":        text("タイムゾーン"),
	"settings.zone_label":          text("カード、期限、メッセージの表示に使うタイムゾーン"),
	"settings.zone_search":         text("タイムゾーンを検索"),
	"settings.zone_browser":        text("ブラウザーのタイムゾーン："),
	"settings.zone_use":            text("これを使う"),
	"settings.save":                text("保存"),
	"settings.language_heading":    text("言語"),
	"settings.language_label":      text("Taaskyの表示言語"),
	"settings.language_auto":       text("ブラウザーの言語"),
	"settings.notify_heading":      text("通知"),
	"settings.notify_intro":        text("エージェントがあなたの確認を必要とすると、Taaskyはすぐにお知らせします。お知らせでは交渉の結末もわかります。"),
	"settings.by_email":            text("メール（%[1]s宛て）"),
	"settings.email_requests":      text("確認依頼（ワンタップリンク付き）"),
	"settings.email_notices":       text("お知らせ：期限前のリマインダー、合意（カレンダー登録付き）、終了、合意不可"),
	"settings.push_legend":         text("デバイス（Webプッシュ）"),
	"settings.push_requests":       text("確認依頼"),
	"settings.push_notices":        text("お知らせ"),
	"settings.push_no_device":      text("ブラウザーで通知を受け取るようにすると（下記）、ここにWebプッシュの選択肢が表示されます。"),
	"settings.requests_wait":       text("確認依頼をすべてオフにしても、ルームのページであなたを待っています。エージェントはあなたなしでは進められません。"),
	"settings.push_heading":        text("Webプッシュ"),
	"settings.push_needs_js":       text("ブラウザーで通知をオンにするにはJavaScriptが必要です。スクリプトが動くと、このページにボタンが表示されます。"),
	"settings.push_on":             text("このブラウザーに通知する"),
	"settings.push_off":            text("このブラウザーへの通知をやめる"),
	"settings.a_browser":           text("ブラウザー"),
	"settings.this_browser":        text("このブラウザー"),
	"settings.last_notified":       text("最終通知：%[1]s"),
	"settings.send_test":           text("テストを送信"),
	"settings.remove":              text("削除"),
	"settings.send_test_all":       text("すべてのデバイスにテストを送信"),
	"settings.no_device":           text("通知を受け取るデバイスはまだありません。"),
	"settings.server_key":          text("サーバーキー"),
	"settings.server_key_text":     text("ブラウザーはこのVAPID公開鍵で購読します："),
	"settings.push_not_configured": text("このサーバーではWebプッシュが設定されていません（%[1]sと%[2]sが必要です）。通知はメールでのみ届きます。"),
	"push_js.unsupported":          text("このブラウザーではここでWebプッシュ通知を受け取れません。"),
	"push_js.needs_https":          text("このブラウザーではここでWebプッシュ通知を受け取れません（httpsが必要です）。"),
	"push_js.on":                   text("このブラウザーに通知が届きます。"),
	"push_js.off":                  text("このブラウザーには通知が届きません。"),
	"push_js.blocked":              text("このブラウザーではこのサイトの通知がブロックされています。サイトの設定で許可してから戻ってきてください。"),
	"push_js.failed":               text("うまくいきませんでした："),
	"settings.whole_log":           text("ログ全体"),
	"settings.notify_not_set_up":   text("このサーバーでは通知が設定されていません。確認依頼はルームのページであなたを待っています。"),

	// The OAuth consent page: an assistant asks to become the person's agent.
	"consent.title":            text("%[1]sを接続"),
	"consent.heading":          text("%[1]sをTaaskyに接続しますか？"),
	"consent.asks":             text("%[1]sがあなたの代わりに交渉する許可を求めています。"),
	"consent.asks_in":          text("%[1]sがアカウント%[2]sであなたの代わりに交渉する許可を求めています。"),
	"consent.agent":            text("これはあなたのエージェントになり、交渉の開始・参加・回答や、あなたへの確認依頼ができるようになります。"),
	"consent.still_yours":      text("承認・拒否・撤退はすべて、ここまたは通知から、引き続きあなたの確認が必要です。"),
	"consent.client":           text("クライアント"),
	"consent.answer_to":        text("応答の送信先"),
	"consent.new_client":       text("このクライアントはTaaskyでは初めてです。これまで誰も接続していません。ご自身でTaaskyをアシスタントに追加したばかりの場合にだけ接続してください。"),
	"consent.host_differs":     text("応答の送信先は%[1]sで、クライアントが名乗る提供元の%[2]sではありません。パソコン上のアプリでは普通のことです。そうでなければ拒否してください。"),
	"consent.account":          text("対象アカウント"),
	"consent.connect":          text("%[1]sを接続"),
	"consent.decline":          text("拒否"),
	"consent.disconnect_later": text("設定 → エージェントでいつでも接続を解除できます。解除するとすぐに使えなくなります。"),

	// Emails (subject, heading, intro, why the recipient gets it) and
	// their parts; "in" names the room inside a sentence.
	"mail.subject":               text("%[1]s — %[2]s"), // what, about what
	"mail.about_with":            text("%[1]sとの交渉"),
	"mail.about_yours":           text("あなたの交渉"),
	"mail.in_with":               text("（「%[1]s」、相手：%[2]s）"),
	"mail.in":                    text("（「%[1]s」）"),
	"mail.with":                  text("（相手：%[1]s）"),
	"mail.your_agent":            text("あなたのエージェント"),
	"mail.your_agent_named":      text("あなたのエージェント（%[1]s）"),
	"mail.review":                text("確認して回答"),
	"mail.open_room":             text("ルームを開く"),
	"mail.the_room":              text("ルーム："),
	"mail.calendar":              text("合意した時間をカレンダー登録用に添付しています（invite.ics）。"),
	"mail.stop":                  text("このお知らせを停止"),
	"mail.settings":              text("通知の設定"),
	"mail.request.intro":         text("%[1]sから確認依頼があります%[3]s：%[2]s。"), // agent, ask.<verdict>, in
	"mail.request.why":           text("エージェントはあなたなしではこの手順を進められません。リンク先ではまず条件が表示され、ボタンを押すまで何も起こりません。"),
	"mail.reminder.subject":      text("リマインダー：回答をお待ちしています"),
	"mail.reminder.heading":      text("まだ回答をお待ちしています"),
	"mail.reminder.intro":        text("%[1]sから確認依頼が届いています%[3]s：%[2]s。"),
	"mail.reminder.deadline":     text("期限は%[1]s（%[2]s）です。それまでに合意がなければルームは終了します。"), // until.*
	"mail.reminder.why":          text("まだ回答していない確認の期限前のリマインダーです。"),
	"mail.agreed.heading":        text("合意成立"),
	"mail.agreed.intro":          text("合意が成立しました%[1]s：お二人がこの条件を承認しました。"),
	"mail.agreed.why":            text("お知らせ：あなたの交渉の1つで合意が成立しました。"),
	"mail.closed.heading":        text("終了"),
	"mail.closed.intro":          text("交渉%[1]sは終了しました：%[2]s。"), // in, closed.<reason>
	"mail.closed.why":            text("お知らせ：あなたの交渉の1つが合意なしで終わりました。"),
	"mail.no_deal.subject":       text("%[1]sは合意不可"),
	"mail.no_deal.heading":       text("合意不可"),
	"mail.no_deal.intro":         text("%[2]sについては合意できません%[1]s：あなたと相手の上限・下限が重なりません。どちらの数値も相手には伝えられていません。"),
	"mail.no_deal.why":           text("お知らせ：Taaskyは相手側の参加時に一度だけ、双方の上限・下限を比較します。"),
	"mail.invite.someone":        text("ある人"),
	"mail.invite.subject":        text("%[1]sから交渉への招待"),
	"mail.invite.subject_titled": text("%[1]sから交渉への招待：「%[2]s」"),
	"mail.invite.heading":        text("%[1]sから招待が届いています"),
	"mail.invite.intro":          text("%[1]sのエージェントが、あなたと条件について合意したいと考えています。招待を開いて提案を確認してください。ブラウザーで回答する（選ぶ、承認する、対案を出す、断る）ことも、ご自身のエージェントにリンクを渡すこともできます。"),
	"mail.invite.intro_titled":   text("%[1]sのエージェントが、「%[2]s」についてあなたと合意したいと考えています。招待を開いて提案を確認してください。ブラウザーで回答する（選ぶ、承認する、対案を出す、断る）ことも、ご自身のエージェントにリンクを渡すこともできます。"),
	"mail.invite.action":         text("招待を見る"),
	"mail.invite.expires":        text("誰も応答しなければ、招待は%[1]sに期限切れになります。"),
	"mail.invite.zone":           text("ここでの時刻はUTCです。招待ページではあなたのタイムゾーンで表示されます。"),
	"mail.invite.refuse":         text("このアドレスへの今後の招待をすべて断る"),
	"mail.invite.why":            text("%[1]sがこの交渉を始める際にあなたのアドレスをTaaskyに伝えました。あなたが回答しない限り、これ以上は送信されません。"),
	"mail.test.subject":          text("Taaskyテスト通知"),
	"mail.test.heading":          text("正常に動作しています"),
	"mail.test.intro":            text("このデバイスにTaaskyからの確認依頼が表示されます。"),

	// Push notifications: the title, and a count of options in the body.
	"push.request":  text("%[1]sからの確認依頼：%[2]s"), // agent, ask.<verdict>
	"push.reminder": text("回答待ち：%[1]s"),
	"push.options":  text("%[1]d件の選択肢"),

	// A calendar entry's description (.ics): the exact agreed moments.
	"ics.agreed":      text("Taaskyで合意。"),
	"ics.agreed_with": text("Taaskyで%[1]sと合意。"),
	"ics.range":       text("%[1]s：%[2]s～%[3]s"),

	// Webhooks
	"webhook.disabled.subject": text("%[1]sのWebhookが停止されました"),
	"webhook.disabled.heading": text("Webhookが停止されました"),
	"webhook.disabled.intro": text("Taaskyは3日間%[1]sへ配信できなかったため、%[2]sのWebhookの送信を停止しました。" +
		"それ以降のイベントは配信ログにあります。エンドポイントを再び有効にするまで何も送信されません。"),
	"webhook.disabled.last":   text("最後の試行：%[1]s。"),
	"webhook.disabled.action": text("Webhookを開く"),
	"webhook.disabled.why":    text("あなたはTaaskyで%[1]sのオーナーです。Webhookが停止するとオーナーに通知されます。"),

	// Account deletion
	"party.deleted_account":        text("削除されたアカウント"),
	"account_delete.heading":       text("アカウントを削除"),
	"account_delete.intro":         text("アカウントの削除は取り消せません。直ちに次のようになります："),
	"account_delete.rooms":         text("進行中の交渉はすべて終了し、相手側にはこのアカウントが削除されたことが通知されます。"),
	"account_delete.access":        text("すべてのエージェントキー、接続されたアシスタント、メンバーのセッションが使えなくなります。"),
	"account_delete.erased":        text("各ルームにおけるこのアカウント側の情報（エージェント、上限・下限、メモ）、メンバー、招待、監査ログ、配信ログが消去されます。他のアカウントに属さないメンバーも、その設定とデバイスとともに消去されます。"),
	"account_delete.kept":          text("相手側は合意済みのものを含む各ルームの控えを保持し、こちら側は「削除されたアカウント」と表示されます。"),
	"account_delete.export_first":  text("控えを残すには、先に上のエクスポートをダウンロードしてください。"),
	"account_delete.confirm_label": text("確認のため、アカウントのスラッグ %[1]s を入力してください"),
	"account_delete.button":        text("アカウントを削除"),
	"account_delete.done_title":    text("アカウントを削除しました"),
	"account_delete.done_rooms":    text("進行中の交渉は終了し、相手側に通知しました。キーとセッションはもう使えません。"),
	"account_delete.done_back":     text("ルームに戻る"),
	"account_delete.done_erased":   text("他のアカウントに属していなかったため、Taaskyが保持していたあなたの情報も消去しました。"),
	"account_delete.done_signup":   text("新しいアカウントを作成"),
	"topic.member_invite":          text("アカウントへの招待"),
	"request.handed_over":          text("このエージェントに代わって回答していたメンバーはアカウントを離れました。オーナーであるあなたが今後回答します。"),

	// Failover
	"failover.retry": text("Taaskyは予備のデータベースに切り替え中です。数秒後にもう一度お試しください。処理済みの内容は保持され、二重に行われることはありません。"),

	// Receipts
	"receipt.heading":            text("合意の証明書"),
	"receipt.intro":              text("Taaskyはこの合意の証明書に署名しました。誰がどの条件に合意し、各側がどのように確定したかを示します。誰でも検証できます。"),
	"receipt.download":           text("証明書をダウンロード（.jwsファイル）"),
	"receipt.print":              text("印刷用の証明書"),
	"receipt.verify_at":          text("証明書の検証：%[1]s"),
	"receipt.room":               text("ルーム %[1]d：%[2]s（招待した側の言葉）"),
	"receipt.room_untitled":      text("ルーム %[1]d"),
	"receipt.agreed_at":          text("合意日時：%[1]s。"),
	"receipt.side_a":             text("ルームを開いた側"),
	"receipt.side_b":             text("参加した側"),
	"receipt.account":            text("アカウント：%[1]s"),
	"receipt.no_account":         text("アカウントなしで招待に回答した人"),
	"receipt.confirmed_by":       text("%[1]sが%[2]s確定（%[3]s）。"), // name, receipt.channel.*, moment
	"receipt.confirmed":          text("%[1]s確定（%[2]s）。"),       // receipt.channel.*, moment
	"receipt.preapproved":        text("この側は、提示された選択肢のどれでもよいと事前に確定しました。"),
	"receipt.channel.dashboard":  text("Taaskyのダッシュボードで"),
	"receipt.channel.email":      text("メールのワンタップリンクで"),
	"receipt.channel.push":       text("プッシュ通知のワンタップリンクで"),
	"receipt.channel.invitation": text("招待ページで"),
	"receipt.terms":              text("合意した条件"),
	"receipt.subject_hash":       text("条件の指紋（subject_hash）：%[1]s"),
	"receipt.log":                text("ルームの記録：%[1]d件のイベントが先頭ハッシュ %[2]s まで連鎖しています"),
	"receipt.issued":             text("発行：%[1]s、発行者 %[2]s、鍵 %[3]s。"),
	"verify.heading":             text("Taaskyの証明書を検証"),
	"verify.intro":               text("証明書（.jwsファイルのテキスト）を貼り付けるか、ファイルをアップロードしてください。送信した内容は保存されません。"),
	"verify.paste":               text("証明書"),
	"verify.upload":              text("またはファイルをアップロード"),
	"verify.submit":              text("検証する"),
	"verify.empty":               text("証明書を貼り付けるか、そのファイルを選んでください。"),
	"verify.valid":               text("有効：%[1]sがこの証明書に署名し、それ以降何も変更されていません。"),
	"verify.invalid":             text("無効：%[1]s"),
	"verify.problem.malformed":   text("これはTaaskyの証明書ではありません（%[1]s）。"),
	"verify.problem.foreign":     text("別のサービスが発行したものです（%[1]s）。"),
	"verify.problem.unknown_key": text("このサービスが公開していない鍵で署名されています（%[1]s）。"),
	"verify.problem.tampered":    text("署名の後に変更されています。"),
	"receipt.attached":           text("この合意の署名付き証明書を添付しました（%[1]s）。誰でも %[2]s で検証できます。"),
	"verify.offline":             text("このページを使わずに検証するには：taasky receipt verify ファイル --jwks %[1]s"),
}
