from unoclient.cli import main

raise SystemExit(main())
