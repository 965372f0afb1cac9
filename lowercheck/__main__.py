from lowercheck.cli import main

raise SystemExit(main())
