package detect

// DefaultLexicon returns loopwatch's built-in multilingual lexicon (see [Lexicon] for
// the phrase syntax). It is written from general knowledge of how people push back on
// an assistant in English, Spanish, Portuguese, French, German, Italian, Dutch,
// Russian, Chinese, Japanese and Korean — not from any labelled session — and covers
// the ways people actually type: without apostrophes or accents ("doesnt", "nao"),
// with phone apostrophes ("doesn’t"), and with common slips ("dosent", via
// Lexicon.Fuzzy). Each call returns fresh slices and maps.
func DefaultLexicon() Lexicon {
	return Lexicon{
		Classes: map[string][]string{
			// Interjections that may precede a negation at the start of a reply.
			"filler": {
				"hmm", "hm", "hmmm", "hmmmm", "mm", "mmm", "uh", "uhh", "um", "umm", "uhm", "erm", "eh", "ehh",
				"ah", "ahh", "oh", "ohh", "oops", "well", "so", "ok", "okay", "k", "sorry", "actually", "wait",
				"hey", "yeah", "yea", "ya", "but", "and",
				"bueno", "pues", "bom", "entao", "olha", "alors", "bon", "euh", "ben", "bah", "also", "naja", "ach",
				"allora", "beh", "nou", "ну",
				"嗯", "呃", "啊", "哦", "额", "唉",
			},
			// Words that, on their own, approve or resume what the agent was doing.
			"approval": {
				"continue", "cont", "go", "ahead", "on", "proceed", "resume", "keep", "going", "carry", "yes", "y",
				"yep", "yeah", "yea", "yup", "ya", "ok", "okay", "k", "kk", "sure", "please", "pls", "plz", "thanks",
				"thank", "you", "thx", "ty", "sorry", "oops", "fine", "good", "great", "right", "alright", "do", "it",
				"that", "now", "again", "retry", "just", "and", "sounds", "looks", "lgtm",
				"si", "sigue", "continua", "continuar", "continue", "adelante", "vale", "dale", "claro", "gracias",
				"por", "favor", "sim", "pode", "segue", "siga", "beleza", "blz", "obrigado", "obrigada", "valeu",
				"oui", "continuez", "vas", "vasy", "allez", "daccord", "merci", "stp", "svp",
				"ja", "weiter", "mach", "fortfahren", "bitte", "danke", "gut", "klar", "genau",
				"avanti", "vai", "grazie", "ga", "door", "doorgaan", "да", "продолжай", "давай",
				// Chinese and Japanese approve in words of several characters (GoOn),
				// which these particles may end ("继续吧", "好呀", "続けてね").
				"啊", "呀", "哈", "吧", "呢", "啦", "嘛", "哒", "嘞", "滴", "ね", "よ",
				"네", "예", "응", "계속", "계속해", "계속해줘", "계속해주세요", "좋아", "그래", "진행", "진행해", "진행해줘",
				"진행해주세요",
				// Apologies ("sorry" above).
				"perdon", "perdona", "disculpa", "desculpa", "desculpe", "pardon", "desole", "scusa", "scusami",
				"entschuldigung", "извини", "извините", "прости", "простите", "сорри", "пожалуйста", "продолжайте",
				"미안", "미안해", "죄송해요", "죄송합니다", "puedes", "seguir", "pure",
			},
			// What a message owning up to a slip of the hand may say besides (see Slip):
			// who, the key, the act, the moment — no instruction ("push", "send",
			// "cancel", "press", "stop" are not here; "didn't mean to press" is a Slip
			// phrase), nor what withdraws the request ("sent it too early").
			"slip_act": {
				"i", "im", "ive", "id", "me", "my", "the", "a", "an", "it", "that", "this", "was", "got", "by", "on",
				"at", "to", "of", "about", "there", "oh", "whoops", "ups", "oups", "lol", "haha", "hit", "hitting",
				"pressed", "pressing", "clicked", "tapped", "esc", "escape", "echap", "enter", "key", "keys",
				"button", "keyboard", "ctrl", "c", "interrupt~", "stopped", "cancelled", "canceled", "finger",
				"fingers", "slipped", "twice",
				"lo", "la", "el", "le", "di", "fue", "siento", "aprete", "tecla", "boton",
				"eu", "foi", "o", "na", "apertei", "botao", "interrompi", "parei",
				"j", "jai", "ai", "sur", "appuye", "touche", "interrompu", "arrete",
				"ich", "hab", "habe", "die", "das", "taste", "gedruckt", "abgebrochen", "unterbrochen", "gestoppt",
				"ho", "il", "premuto", "tasto", "interrotto", "fermato",
				"я", "на", "нажал", "нажала", "клавишу", "прервал", "прервала", "остановил", "остановила",
				"键", "我",
				"キ", "ー", "を", "に",
				"눌렀어", "눌렀네", "눌렀다", "눌렀어요", "눌렀습니다", "버튼", "중단했어", "멈췄어",
			},
			// The key-press a "wrong key" slip names ("pressed the wrong key"; the wrong
			// key alone is as likely a map's or a form's).
			"slip_press": {
				"pressed", "hit", "hitting", "clicked", "tapped", "pressing", "aprete", "apertei", "appuye", "premuto",
				"нажал", "нажала",
			},
			// The one spoken to: outside a Slip phrase ("didn't mean to interrupt you"),
			// what they did or should do ("you pushed it by mistake"), no slip of the
			// human's.
			"second_person": {
				"you", "u", "your", "youre", "te", "ti", "tu", "toi", "vous", "usted", "voce", "dich", "dir", "du",
				"ты", "тебя", "вы", "вас", "你", "您", "너", "당신",
			},
			// Function words left out of the repeat-request similarity.
			"stop": {
				"a", "an", "the", "to", "of", "in", "on", "at", "for", "with", "from", "by", "and", "or", "but", "so",
				"if", "then", "than", "that", "this", "these", "those", "it", "its", "is", "are", "was", "were", "be",
				"been", "am", "do", "does", "did", "have", "has", "had", "i", "im", "me", "my", "we", "us", "our",
				"you", "your", "they", "them", "their", "can", "could", "would", "should", "will", "may", "might",
				"must", "let", "lets", "please", "pls", "just", "also", "too", "very", "really", "what", "which",
				"how", "when", "where", "there", "here", "now", "ok", "okay", "as", "about", "into", "up", "out",
				"all", "any", "some", "more", "other", "only", "yes", "yeah", "hey", "hi", "thanks", "like",
				"el", "la", "los", "las", "un", "una", "de", "del", "al", "en", "y", "o", "que", "es", "son", "por",
				"para", "con", "se", "lo", "le", "me", "te", "mi", "tu", "su", "este", "esta", "esto", "eso", "pero",
				"como", "mas", "ya", "muy", "tambien", "puedes", "hay",
				"os", "as", "um", "uma", "do", "da", "dos", "das", "no", "na", "nos", "nas", "em", "e", "ou", "com",
				"meu", "minha", "seu", "sua", "isso", "isto", "esse", "essa", "mas", "voce", "pode",
				"le", "les", "une", "des", "du", "au", "aux", "et", "qui", "est", "sont", "pour", "avec", "ce",
				"cette", "ces", "il", "elle", "on", "nous", "vous", "je", "plus", "tres", "aussi",
				"der", "die", "das", "den", "dem", "ein", "eine", "einen", "und", "oder", "zu", "im", "am", "an",
				"auf", "mit", "von", "fur", "ist", "sind", "es", "ich", "du", "wir", "ihr", "sie", "bitte", "auch",
				"nur", "aber", "wie", "mal", "kannst",
				"il", "gli", "di", "della", "che", "sono", "questo", "questa", "ma", "anche", "puoi",
			},
			// Negations that lead a reply.
			"lead_neg": {
				"no", "nope", "nah", "nop", "noo", "nooo", "not", "wrong", "incorrect", "stop",
				"nao", "non", "nein", "nee", "nej", "nie", "niet", "нет", "ні", "hayir", "tidak", "bukan", "khong",
				"아니", "아니요", "아뇨", "아니야", "아니에요",
			},
			// Words that continue a leading negation into a correction ("no this is on
			// macOS", "no i said", "não isso", "nein das").
			"redirect": {
				"this", "that", "thats", "it", "its", "i", "im", "you", "youre", "use", "not", "dont", "do", "wait",
				"stop", "we", "lets", "instead", "but", "actually", "why", "what", "just", "only", "keep", "leave",
				"remove", "put", "change", "make", "revert", "undo", "the", "other", "wrong",
				"isso", "esse", "essa", "usa", "eu", "voce", "e", "era", "pare", "eso", "esa", "yo", "es",
				"das", "ich", "du", "nicht", "mach", "ce", "cest", "je", "tu", "pas", "questo", "quello", "io",
				"это", "я", "ты", "не",
			},
			// Negated forms that follow "still".
			"neg": {
				"not", "no", "nothing", "never", "none", "nope", "doesnt", "didnt", "isnt", "wasnt", "wont", "cant",
				"cannot", "couldnt", "arent", "werent", "dont", "havent", "hasnt", "aint", "nicht", "kein", "keine",
				"keinen", "pas", "non", "nao", "не", "нет",
			},
			// Words of a problem, in any language.
			"bad": {
				"broken", "broke", "fail~", "error~", "wrong", "crash~", "bug", "bugs", "buggy", "stuck", "hang~",
				"hung", "freez~", "frozen", "missing", "empty", "blank", "red", "issue~", "problem~",
				"leak~", "exception~", "timeout~", "panic~", "flaky", "garbage", "gone",
				"roto", "rota", "falla~", "fallo", "erro~", "quebr~", "falh~",
				"erreur~", "plant~", "casse~", "echou~", "bloque~",
				"fehler~", "kaputt", "falsch", "absturz~", "sturzt",
				"errore~", "errori", "rotto", "sbagliat~",
				"ошибк~", "ошибка", "сломан~", "падает",
			},
			// Acknowledgements that may open a "yes, but …" correction.
			"ack": {
				"yes", "yeah", "yep", "yea", "ok", "okay", "sure", "right", "fine", "alright", "true", "agreed",
				"si", "sim", "claro", "vale", "oui", "daccord", "ja", "klar", "genau", "certo", "да", "ладно",
			},
			// "But" in the languages of the ack class.
			"but": {"but", "pero", "mas", "porem", "mais", "aber", "doch", "ma", "pero", "но"},
			// Seeing or getting a result (after "still": "still seeing it").
			"perceive": {
				"see", "sees", "seeing", "saw", "seen", "get", "gets", "getting", "got", "show~", "happen~",
				"occur~", "appear~", "persist~", "exist~",
			},
			// Nouns of a symptom (after "same": "same error").
			"issue": {
				"error~", "issue~", "problem~", "bug", "bugs", "crash~", "failure~", "exception~", "warning~",
				"symptom~",
			},
		},
		Negation: []string{
			// A negator that also makes the prohibitive ("non usare X", "不要用全局变量", "别
			//忘了…": don't use X) is a reply only when it stands alone, as "don't" never is.
			"^ %lead_neg ,", "^ %lead_neg %redirect", "^ nope", "^ nah", "^ nein", "^ non ,", "^ niet", "^ нет",
			"^ nee", "^ nej",
			"^ 不是", "^ 不对", "^ 不要 ,", "^ 不行", "^ 别 ,",
			"^ いいえ", "^ いや", "^ 違う", "^ 違います", "^ ちがう", "^ ダメ", "^ だめ",
		},
		Still: []string{
			// English.
			"still * %neg", "still * %bad", "still * %perceive",
			"%bad again", "still the same", "still same", "still * same",
			"not work~", "doesnt work~", "didnt work~", "isnt work~", "wasnt work~", "wont work~", "cant work~",
			"does not work~", "did not work~", "is not work~", "no longer work~", "never work~", "stopped work~",
			"doesnt seem to work~", "didnt seem to work~", "nothing work~",
			"didnt fix", "did not fix", "doesnt fix", "hasnt fixed", "not fixed", "wasnt fixed", "isnt fixed",
			"nothing changed", "no difference", "no effect", "does nothing", "did nothing",
			"didnt do anything", "didnt change anything", "didnt help", "doesnt help", "not help~",
			"same %issue", "back to square one",
			// Spanish.
			"sigue sin funcion~", "sigue * %bad", "sigue igual", "sigue sin", "todavia no funcion~",
			"aun no funcion~", "no funcion~", "no anda", "no sirve", "otra vez * %bad", "de nuevo * %bad",
			"mismo error", "mismo problema", "el mismo fallo",
			// Portuguese.
			"ainda nao funcion~", "ainda * %bad", "continua sem funcion~", "continua * %bad", "nao funcion~",
			"nao deu certo", "nao rolou", "mesmo erro", "mesmo problema", "de novo * %bad", "outra vez * erro~",
			"deu ruim", "nada mudou", "nao mudou nada",
			// French.
			"toujours pas", "marche toujours pas", "ne marche pas", "marche pas", "ne fonctionne pas",
			"fonctionne pas", "toujours la meme", "toujours le meme", "toujours casse~", "toujours bloque~",
			"toujours en erreur", "plante toujours", "encore * erreur~", "meme erreur", "meme probleme",
			"de nouveau * erreur~", "ca plante", "rien ne change", "rien na change", "ca ne change rien",
			// German.
			"immer noch * %neg", "immer noch * %bad", "noch immer * %neg", "noch immer * %bad",
			"funktioniert nicht", "funktioniert * nicht", "geht nicht", "klappt nicht", "schon wieder",
			"wieder * fehler~", "gleiche fehler", "gleichen fehler", "selbe fehler", "selben fehler",
			"derselbe fehler", "hat nichts geandert", "keine anderung",
			// Italian.
			"ancora non funzion~", "non funzion~", "ancora * %bad", "di nuovo * %bad", "stesso errore",
			"stesso problema", "non va", "continua a non",
			// Dutch.
			"nog steeds niet", "nog steeds * fout~", "werkt niet", "werkt nog steeds niet", "zelfde fout",
			// Russian.
			"все еще не", "все еще * %bad", "до сих пор не", "опять * %bad", "снова * %bad", "не работ~",
			"та же ошибка", "все равно не", "ничего не изменилось",
			// Chinese.
			"还是不行", "还是不对", "还是错", "还是报错", "还是有问题", "还是一样", "还是没有", "还是没用",
			"还是失败", "仍然不行", "仍然报错", "仍然有", "仍然失败", "依然不行", "依然报错", "依然失败", "依旧",
			"又报错", "又出错", "又错了", "又失败", "又坏了", "又崩", "又是这个", "同样的错误", "一样的错误",
			"同样的问题", "没用", "不行", "不工作", "没有效果", "没效果", "没反应", "没起作用", "不起作用",
			"还没好", "没修好", "没解决", "还有问题", "报错了",
			// Japanese.
			"まだ動かない", "まだ動きません", "まだエラー", "まだ直って", "まだ失敗", "まだ同じ", "また同じ",
			"またエラー", "また失敗", "また落ち", "直っていない", "直ってない", "直ってません", "動かない",
			"動きません", "うまくいかない", "うまくいきません", "変わらない", "変わってない", "変わりません",
			"効かない", "エラーになる", "エラーが出る", "エラーが出ます", "同じエラー", "解決しない",
			"解決していない",
			// Korean.
			"아직도 * 안", "아직 안 돼", "여전히 * 안", "안 돼", "안 돼요", "안 되", "안돼", "안돼요", "안되요",
			"안 됩니다", "안됩니다", "작동 안", "작동하지 않아", "작동하지 않아요", "작동하지 않습니다", "또 에러",
			"또 오류", "같은 에러", "같은 오류",
		},
		Doubt: []string{
			// English.
			"did you even", "did you actually", "did you really", "have you even", "have you actually",
			"are you sure", "you sure", "r u sure", "are we sure", "you didnt", "you did not", "you havent", "you have not",
			"you never", "you forgot", "you missed", "you ignored", "you skipped", "you broke", "you deleted",
			"you removed", "you just ignored", "you just deleted", "why did you", "why would you", "why are you",
			"why do you", "why didnt you", "why did it", "why * %neg", "what happened to", "what did you do",
			"what have you done", "what are you doing", "where did * go", "did you miss", "did we miss",
			"did you forget", "did we forget", "did you skip", "did we skip", "did you break", "did we break",
			"shouldnt it", "shouldnt that", "shouldnt this", "wasnt * supposed", "^ wait ,", "^ wait wait",
			"^ wait what", "^ hold on", "^ hang on", "^ weird", "^ strange", "thats weird", "thats strange",
			"thats odd", "how weird",
			// Spanish.
			"estas seguro", "estas segura", "esta seguro", "ni siquiera", "por que hiciste", "por que * no",
			"no hiciste", "no lo hiciste", "olvidaste", "te olvidaste", "rompiste",
			// Portuguese.
			"tem certeza", "por que voce", "pq voce", "voce nem", "voce nao", "voce esqueceu", "esqueceu",
			"voce quebrou", "quebrou", "nao fez", "por que * nao", "pq * nao",
			// French.
			"tu es sur", "vous etes sur", "tes sur", "es tu sur", "etes vous sur", "pourquoi tu as",
			"pourquoi as tu", "pourquoi vous avez", "pourquoi * pas", "tu nas pas", "tu as oublie",
			"tas oublie", "tu as casse", "meme pas",
			// German.
			"bist du sicher", "sind sie sicher", "bist du dir sicher", "warum hast du", "wieso hast du",
			"weshalb hast du", "warum * nicht", "wieso * nicht", "du hast vergessen", "hast du vergessen",
			"hast du * uberhaupt", "du hast nicht", "du hast * kaputt",
			// Italian.
			"sei sicuro", "sei sicura", "perche hai", "perche * non", "non hai", "hai dimenticato",
			// Russian.
			"ты уверен", "вы уверены", "почему ты", "почему * не", "ты не", "ты забыл", "зачем ты",
			// Chinese.
			"你确定", "确定吗", "你真的", "真的吗", "为什么你", "你为什么", "为什么要", "为什么还", "为什么又",
			"你根本", "根本没", "你没有", "你忘了", "你到底", "到底", "怎么又", "怎么还",
			// Japanese.
			"本当に", "ほんとに", "本当ですか", "確かですか", "ちゃんと", "確認した", "忘れて",
			// Korean.
			"확실해", "확실합니까", "왜 * 안",
		},
		Correction: []string{
			// English.
			"thats wrong", "that is wrong", "thats not right", "that is not right", "thats not it",
			"thats not what", "not what i", "i meant", "i said", "i told you", "i asked you", "i asked for",
			"like i said", "as i said", "i already said", "i already told", "i already asked", "i already mentioned",
			"ive already said", "ive already told", "i just said", "i just told you", "how many times", "the wrong", "wrong one", "thats incorrect",
			"not correct", "isnt correct", "isnt right", "not right", "not quite", "you misunderstood",
			"misunderstood", "you misread", "got it wrong", "not like that", "dont do that", "dont do this",
			"stop doing", "please stop", "undo that", "undo this", "undo it", "undo your", "undo what",
			"revert that", "revert this", "revert what you", "revert your", "put it back", "change it back",
			"thats the opposite", "i didnt ask", "i never asked", "i did not ask", "nobody asked",
			"^ %ack %but", "^ %ack , %but", "i dont * like", "not happy with", "i dont think thats right",
			"i dont think so",
			// Spanish.
			"eso esta mal", "esta mal", "no es eso", "no es lo que", "eso no es", "me referia", "quise decir",
			"te dije", "ya te dije", "te pedi", "no te pedi", "incorrecto", "equivocado", "te equivocaste",
			"no asi", "deshaz eso", "deshaz esto", "revierte eso",
			// Portuguese.
			"esta errado", "ta errado", "errado", "nao e isso", "nao era isso", "nao foi isso", "nao e o que",
			"quis dizer", "eu disse", "eu falei", "ja falei", "ja disse", "eu pedi", "nao pedi", "incorreto",
			"voce errou", "errou", "desfaz isso", "desfaca isso", "reverte isso",
			// French.
			"cest faux", "cest pas ca", "ce nest pas ca", "pas ca", "cest incorrect", "je voulais dire",
			"jai dit", "je tai dit", "je tai demande", "je nai pas demande", "tu tes trompe", "pas comme ca",
			"faux",
			// German.
			"das ist falsch", "ist falsch", "falsch", "das stimmt nicht", "stimmt nicht", "nicht das",
			"nicht so", "meinte ich nicht", "ich meinte", "ich sagte", "ich habe gesagt", "hab ich gesagt",
			"hab doch gesagt", "wie gesagt", "ruckgangig",
			// Italian.
			"e sbagliato", "sbagliato", "non e quello", "non e cosi", "intendevo", "ho detto", "ti ho detto",
			"ti avevo detto", "non ho chiesto",
			// Dutch.
			"dat is fout", "ik bedoelde", "ik zei",
			// Russian.
			"неправильно", "не то", "не так", "я имел в виду", "я сказал", "я же сказал", "я просил", "верни",
			"отмени", "ты ошибся",
			// Chinese.
			"^ 错了", "你错了", "不对", "搞错", "弄错", "不是这样", "不是这个", "不是我要的", "我是说", "我的意思是",
			"我说的是", "我说了", "我已经说", "我让你", "不要这样", "别这样", "改回", "理解错",
			// Japanese.
			"そうじゃなくて", "じゃなくて", "ではなく", "違います", "違う", "間違って", "間違い", "そうではなく",
			"言ったのに", "言ったでしょ", "って言った", "と言った", "元に戻して", "そういう意味じゃ",
			// Korean.
			"틀렸~", "그게 아니라", "아니라", "잘못~", "말했잖아", "말했는데", "되돌려~",
		},
		Exasperation: []string{
			// English.
			"wtf", "wth", "ffs", "ugh", "ughh", "argh", "omfg", "seriously", "come on", "cmon",
			"for gods sake", "for fucks sake", "damn it", "dammit", "goddamn~", "ridiculous", "useless",
			"annoying", "frustrat~", "sigh", "facepalm", "smh", "what the hell", "what the heck",
			"what the fuck", "are you kidding", "you kidding me", "give me a break",
			// Spanish.
			"joder", "mierda", "por dios", "en serio", "que cono", "frustrante",
			// Portuguese.
			"pqp", "porra", "caralho", "puta merda", "fala serio", "que saco", "aff", "affs",
			// French.
			"putain", "merde", "cest pas vrai", "nimporte quoi", "ras le bol", "frustrant",
			// German.
			"scheisse", "verdammt", "ernsthaft", "echt jetzt", "nervig", "frustrierend", "oh mann",
			// Italian.
			"cazzo", "ma dai", "sul serio", "che palle",
			// Russian.
			"блин", "черт", "серьезно", "бесит", "да ладно",
			// Chinese.
			"卧槽", "我靠", "无语", "服了", "妈的", "搞什么", "什么鬼", "气死", "受不了", "离谱",
			// Japanese.
			"ふざけ", "ちくしょう", "くそ", "クソ", "いい加減に", "何やって", "なにやって", "勘弁",
			// Korean.
			"짜증~", "미치겠~", "제발",
		},
		GiveUp: []string{
			// English.
			"forget it", "forget about it", "forget this", "forget that", "i give up",
			"ill do it myself", "ill do that myself", "ill do this myself", "ill write it myself",
			"ill fix it myself", "ill handle it myself", "ill just do it myself", "i will do it myself",
			"let me do it myself", "ill do it by hand", "screw it", "this is hopeless", "its hopeless",
			"waste of time", "wasting my time", "just stop",
			// Spanish.
			"olvidalo", "olvida eso", "olvidate", "me rindo", "lo hago yo", "lo hare yo", "ya lo hago yo",
			"lo hago yo mismo", "perdiendo el tiempo",
			// Portuguese.
			"esquece", "esqueca isso", "deixa pra la", "deixa para la", "eu desisto", "desisto",
			"deixa que eu faco", "eu mesmo faco", "perda de tempo",
			// French.
			"laisse tomber", "oublie ca", "oublie tout", "oublie le", "jabandonne", "je vais le faire moi meme",
			"je le fais moi meme", "je le ferai moi meme", "perte de temps", "tant pis",
			// German.
			"vergiss es", "vergiss das", "lass gut sein", "ich gebe auf", "ich mach das selbst",
			"ich mache das selbst", "ich mach es selbst", "ich mache es selbst", "zeitverschwendung",
			// Italian.
			"lascia perdere", "lascia stare", "lo faccio io", "ci rinuncio", "mi arrendo",
			"perdita di tempo",
			// Dutch.
			"laat maar zitten", "vergeet het", "ik doe het zelf", "ik geef het op",
			// Russian.
			"забудь", "забей", "сам сделаю", "я сдаюсь", "сдаюсь",
			// Chinese.
			"算了", "我自己来", "我自己改", "我自己写", "我自己弄", "我放弃", "别管了", "不管了", "浪费时间",
			// Japanese.
			"もういい", "自分でやる", "自分でやります", "自分で直す", "自分で書く", "諦め", "あきらめ",
			// Korean.
			"포기~", "내가 할게", "내가 직접", "그만해", "그만하세요",
		},
		ExasperationEmoji: "😭😤😡🤬🙄🤦😩😫😒😠💢😖😣",
		GoOn: []string{
			// English: going on where it was ("you" is in them).
			"where you left off", "from where you left off", "what you were doing", "what you were doing before",
			"you can continue", "you can go on", "you may continue", "you can proceed", "you can keep going",
			// Chinese.
			"继续", "请继续", "好", "好的", "行", "行的", "可以", "可以的", "是", "是的", "对", "对的", "嗯", "嗯嗯",
			"恩", "恩恩", "谢谢", "多谢", "没事", "没关系", "没问题", "收到", "明白", "明白了", "知道了",
			// Japanese ("いいです" and "そのまま" alone may decline: not here).
			"はい", "はーい", "はいっ", "うん", "ええ", "続けて", "続けてください", "続けて下さい", "続行",
			"続行して", "続行してください", "どうぞ", "お願いします", "お願い", "進めて", "進めてください",
			"進めて下さい", "そのまま続けて", "いいよ", "いいですよ", "大丈夫", "大丈夫です", "了解", "了解です",
			"オッケー", "オーケー", "です", "ありがとう",
		},
		Slip: []string{
			// English.
			"by accident", "accident~", "by mistake", "my bad", "my mistake", "didnt mean to", "did not mean to",
			"didnt mean to stop", "did not mean to stop", "didnt mean to press", "did not mean to press",
			"didnt mean to hit", "did not mean to hit", "didnt mean to cancel", "did not mean to cancel",
			"didnt mean to interrupt you", "did not mean to interrupt you", "didnt mean to stop you",
			"did not mean to stop you", "not on purpose", "unintentional~", "misclick~", "mis click~",
			"fat finger~", "%slip_press * wrong key", "%slip_press * wrong keys", "%slip_press * wrong button",
			// Spanish.
			"sin querer", "por accidente", "me equivoque de tecla", "lo siento", "%slip_press * tecla equivocada",
			// Portuguese.
			"sem querer", "por engano", "por acidente", "foi mal", "%slip_press * tecla errada",
			// French.
			"par erreur", "par accident", "sans faire expres", "sans le vouloir", "fausse manip~",
			"%slip_press * mauvaise touche",
			// German.
			"aus versehen", "versehentlich", "falsche taste gedruckt",
			// Italian.
			"per sbaglio", "senza volere",
			// Russian.
			"случайно", "нечаянно", "по ошибке",
			// Chinese (and apologies: "sorry" is an approval word).
			"不小心", "手滑", "按错", "按错了", "误按", "误触", "点错", "点错了", "误操作", "按了", "按到了", "点了", "点到了", "打断你",
			"打断了你", "打断你了", "打断了", "中断了", "对不起", "抱歉", "不好意思",
			// Japanese.
			"うっかり", "間違えて * 押しちゃった", "間違えて * 押してしまった", "誤って * 押しちゃった",
			"誤って * 押してしまった", "押しちゃった", "押してしまった", "ミスった", "すみません", "ごめん",
			"ごめんなさい",
			// Korean.
			"실수로", "잘못 눌렀~",
		},
		Bait: []string{
			// English.
			"no problem", "no problems", "no prob", "no probs", "no worries", "no worry", "no rush",
			"no hurry", "no thanks", "no thank you", "no need to apologize", "no biggie", "no big deal",
			"no sweat", "no doubt", "not a problem", "not bad", "not sure", "not yet", "why not",
			"not right now", "nicht so schlimm",
			"no thats fine", "no thats all", "no its fine", "no its ok", "no all good", "no looks good",
			"no youre right", "no you are right", "no go ahead", "nope thats all", "nope all good",
			"dont forget", "do not forget", "never forget", "not forget", "wont give up", "not give up",
			"dont give up", "just stop the", "no te olvides",
			"nao esqueca", "nao se esqueca", "noublie pas", "nicht vergessen", "vergiss nicht", "не забудь", "non dimenticare",
			"error handling", "works great", "works fine", "works now", "working now", "it works",
			"that works", "works perfectly", "works well", "it worked",
			// Spanish.
			"no hay problema", "no pasa nada", "no te preocupes", "no gracias", "sin problema~",
			"no esta mal",
			// Portuguese.
			"nao tem problema", "sem problema~", "nao se preocupe", "nao obrigad~", "tudo bem", "nao faz mal",
			"nao esta mal", "nao ta mal", "nada mal",
			// French.
			"pas de probleme", "pas de soucis", "pas de souci", "pas grave", "non merci", "pas mal",
			"ne tinquiete pas", "ca marche",
			// German.
			"kein problem", "keine probleme", "keine sorge", "keine sorgen", "nein danke", "passt schon",
			"nicht schlecht", "macht nichts",
			// Italian.
			"nessun problema", "non ce problema", "non preoccuparti", "no grazie", "non male",
			// Russian.
			"без проблем", "нет проблем", "не за что", "не волнуйся", "нет спасибо",
			// Chinese.
			"没问题", "没关系", "没事", "不客气", "不用谢", "不错", "没错", "不好意思", "不要紧", "还不错",
			"计算", "打算", "估算", "运算", "换算", "结算", "清算", "核算", "算了算",
			"没用过", "没有用过",
			// Japanese.
			"問題ない", "問題ありません", "問題なし", "大丈夫", "構いません", "かまいません", "気にしないで",
			"悪くない",
			// Korean.
			"문제없~", "문제 없어", "괜찮~", "걱정 마",
		},
		Typos: map[string]string{
			"stil": "still", "stll": "still", "sitll": "still", "agin": "again", "agian": "again",
			"eror": "error", "erorr": "error", "errror": "error", "wrok": "work", "wrks": "works",
			"dosnt": "doesnt", "didint": "didnt", "wierd": "weird",
		},
		MaxGap: 3,
		Fuzzy:  true,
	}
}
